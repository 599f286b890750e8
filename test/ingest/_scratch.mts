import { parseDocument } from "../../src/ingest/parse/index.js";
console.log(JSON.stringify(await parseDocument(Buffer.from("<html><body><nav><a href='/'>x</a></nav><script>1</script></body></html>"), "html", "x.html")));

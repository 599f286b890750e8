// A raw request through node:http, for what fetch and inject() refuse to send (huge headers, odd
// methods, broken framing): these tests need a server with a socket.
import http from "node:http";

export function rawRequest(
  url: string,
  opts: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string } | { error: string }> {
  return new Promise((resolve) => {
    const req = http.request(url + opts.path, { method: opts.method ?? "GET", headers: opts.headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      res.on("error", (e) => resolve({ error: e.message }));
    });
    req.on("error", (e) => resolve({ error: e.message }));
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

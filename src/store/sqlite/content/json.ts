export { parseJson, toJobRow, vectorTable } from "../../json.js";

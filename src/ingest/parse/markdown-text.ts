// Plain text of parsed Markdown nodes. Search and embeddings want the words, not link targets,
// emphasis markers or HTML tags; block structure is kept by markdown-blocks.ts instead.
import type { Nodes, PhrasingContent } from "mdast";
import { stripInline } from "./inline.js";

const HTML_COMMENT = /<!--[\s\S]*?(?:-->|$)/g;

/** Text of inline content, joined as written (whitespace is collapsed by the caller). */
export function inlineText(nodes: readonly PhrasingContent[]): string {
  return nodes.map(phrasingText).join("");
}

function phrasingText(node: PhrasingContent): string {
  switch (node.type) {
    case "text":
    case "inlineCode":
      return node.value;
    case "html":
      return htmlText(node.value);
    case "break":
      return " ";
    case "image":
    case "imageReference":
      return node.alt ?? "";
    case "footnoteReference":
      // "[^1]" is a pointer, not words; the footnote's own text is kept where it is defined
      return "";
    default:
      return "children" in node ? inlineText(node.children) : "";
  }
}

/** Raw HTML keeps its text: known inline tags go (stripInline's list), comments go entirely. */
export function htmlText(html: string): string {
  return stripInline(html.replace(HTML_COMMENT, ""));
}

/**
 * Text of any node on one line, for content that is folded into a list item (a code block, a
 * quote, a table inside an item): the words matter there, not the layout.
 */
export function flatText(node: Nodes): string {
  switch (node.type) {
    case "paragraph":
    case "heading":
    case "tableCell":
      return inlineText(node.children);
    case "code":
      return node.value;
    case "html":
      return htmlText(node.value);
    case "definition":
    case "thematicBreak":
      return "";
    default:
      return "children" in node ? (node.children as Nodes[]).map(flatText).join(" ") : "";
  }
}

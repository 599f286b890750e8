// Plain text of parsed Markdown tokens. Search and embeddings want the words, not link targets,
// emphasis markers or HTML tags; block structure is kept by markdown-blocks.ts instead.
import type { Token } from "markdown-it";
import { stripInline } from "./inline.js";

const HTML_COMMENT = /<!--[\s\S]*?(?:-->|$)/g;

/** Text of an inline token's children, joined as written (whitespace is collapsed by the caller). */
export function inlineText(children: readonly Token[] | null): string {
  let text = "";
  for (const token of children ?? []) text += token.type === "image" ? imageAlt(token) : pieceText(token);
  return text;
}

function pieceText(token: Token): string {
  switch (token.type) {
    case "text":
    case "code_inline":
      return token.content;
    case "html_inline":
      return htmlText(token.content);
    case "softbreak":
      return "\n";
    case "hardbreak":
      return " ";
    default:
      // link, emphasis and strikethrough markers carry no words; a footnote reference ("[^1]")
      // is a pointer, and the footnote's own text is kept where it is defined
      return "";
  }
}

/**
 * An image stands for its alt text, which is itself inline Markdown (and may hold images);
 * walked with a stack, so that no nesting can exhaust the call stack.
 */
function imageAlt(image: Token): string {
  let text = "";
  const pending: Token[] = [image];
  for (let token = pending.pop(); token; token = pending.pop()) {
    if (token.type !== "image") text += pieceText(token);
    else for (const child of (token.children ?? []).slice().reverse()) pending.push(child);
  }
  return text;
}

/** Raw HTML keeps its text: known inline tags go (stripInline's list), comments go entirely. */
export function htmlText(html: string): string {
  return stripInline(html.replace(HTML_COMMENT, ""));
}

/**
 * Words of a block token, for content that is folded into a list item (a code block, a quote, a
 * table inside an item): the words matter there, not the layout. Other tokens carry none.
 */
export function flatText(token: Token): string {
  switch (token.type) {
    case "inline":
      return inlineText(token.children);
    case "fence":
    case "code_block":
      return token.content;
    case "html_block":
      return htmlText(token.content);
    default:
      return "";
  }
}

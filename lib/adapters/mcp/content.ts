/** A `tools/call` result as the SDK gives it, the parts that become a tool result. */
export interface CallResultLike {
  content?: unknown;
  structuredContent?: unknown;
  toolResult?: unknown;
}

/**
 * A call's result as the tool result's text: its text content, joined by newlines; other content
 * (an image, audio, a resource) named in brackets, as the model is sent text only; with no content
 * at all, its structured content as JSON.
 */
export function callText(result: CallResultLike): string {
  const content = Array.isArray(result.content) ? (result.content as Record<string, unknown>[]) : [];
  if (content.length === 0) {
    const structured = result.structuredContent ?? result.toolResult;
    return structured === undefined ? "" : JSON.stringify(structured);
  }
  return content
    .map((item) => {
      if (item.type === "text" && typeof item.text === "string") return item.text;
      if (item.type === "resource" && typeof item.resource === "object" && item.resource !== null) {
        const resource = item.resource as Record<string, unknown>;
        if (typeof resource.text === "string") return resource.text;
        return `[resource ${String(resource.uri)}]`;
      }
      if (item.type === "resource_link") return `[resource ${String(item.uri)}]`;
      return `[${String(item.type)}${typeof item.mimeType === "string" ? ` ${item.mimeType}` : ""}]`;
    })
    .join("\n");
}

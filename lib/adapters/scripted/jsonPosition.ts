/**
 * Where the first JSON syntax error in `text` is, as 1-based line and column; undefined if there
 * is none. V8's JSON.parse messages quote the text around the error instead of naming a position,
 * and a script file's text is never shown (it may be a file the caller could not read).
 */
export function jsonErrorAt(text: string): { line: number; column: number } | undefined {
  let at = 0;
  const space = () => {
    while (at < text.length && " \t\n\r".includes(text[at]!)) at++;
  };
  const fail = (): never => {
    throw at;
  };
  const literal = (word: string) => {
    if (text.startsWith(word, at)) at += word.length;
    else fail();
  };
  const string = () => {
    at++;
    while (at < text.length && text[at] !== '"') {
      const char = text.charCodeAt(at);
      if (char < 0x20) fail();
      if (text[at] === "\\") {
        at++;
        if (text[at] === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(at + 1, at + 5))) fail();
          at += 4;
        } else if (!'"\\/bfnrt'.includes(text[at] ?? "x")) fail();
      }
      at++;
    }
    if (at >= text.length) fail();
    at++;
  };
  const number = () => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(at, at + 400));
    if (!match) return fail();
    at += match[0].length;
  };
  const value = () => {
    space();
    const char = text[at];
    if (char === "{") {
      at++;
      space();
      if (text[at] === "}") {
        at++;
        return;
      }
      for (;;) {
        space();
        if (text[at] !== '"') fail();
        string();
        space();
        if (text[at] !== ":") fail();
        at++;
        value();
        space();
        if (text[at] === "}") {
          at++;
          return;
        }
        if (text[at] !== ",") fail();
        at++;
      }
    }
    if (char === "[") {
      at++;
      space();
      if (text[at] === "]") {
        at++;
        return;
      }
      for (;;) {
        value();
        space();
        if (text[at] === "]") {
          at++;
          return;
        }
        if (text[at] !== ",") fail();
        at++;
      }
    }
    if (char === '"') return string();
    if (char === "t") return literal("true");
    if (char === "f") return literal("false");
    if (char === "n") return literal("null");
    return number();
  };
  try {
    value();
    space();
    if (at < text.length) fail();
    return undefined;
  } catch (offset) {
    if (typeof offset !== "number") throw offset;
    const before = text.slice(0, offset).split("\n");
    return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
  }
}

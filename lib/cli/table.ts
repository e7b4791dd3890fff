/** How a column lines up its cells: text to the left, numbers to the right. */
export type Align = "left" | "right";

/**
 * Rows of cells as lines of text in columns, each column as wide as its widest cell (so no
 * value, however long, pushes the columns after it out of line), two spaces between columns
 * and none after the last. `align` gives each column's alignment; columns past it align left.
 */
export function columns(rows: readonly (readonly string[])[], align: readonly Align[] = []): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  }
  return rows.map((row) =>
    row
      .map((cell, i) => {
        const width = widths[i] ?? 0;
        if (align[i] === "right") return cell.padStart(width);
        return i === row.length - 1 ? cell : cell.padEnd(width);
      })
      .join("  "),
  );
}

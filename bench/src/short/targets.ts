/**
 * A measured figure beside its target: "met", or "not met (by how much)". Pure, so the wording is
 * tested (test/bench/targets.test.ts) and the same for every figure of the short/perf table.
 */

/** A figure's target: at most `limit`, in `unit` ("ms", "×" for a ratio to a base figure). */
export interface Target {
  limit: number;
  unit: "ms" | "×";
  /** What a ratio is of, in words ("node -e 0", "the fifth run"). */
  of?: string;
}

export interface Figure {
  figure: string;
  /** The measured value in the target's unit: ms, or the ratio. Undefined: it could not be measured. */
  value?: number;
  /** For a ratio, the ms it is computed from. */
  ms?: number;
  target?: Target;
  /** The unit of a figure without a target, when it is not ms ("turns/s"). @default "ms" */
  unit?: string;
  /** Why it could not be measured, or how it was. */
  note?: string;
}

/** A number as the tables print it: up to `digits` decimals, thousands separated. */
export const formatNumber = (value: number, digits = 1): string =>
  value.toLocaleString("en-US", { maximumFractionDigits: digits });

function checkTarget(target: Target): void {
  if (!Number.isFinite(target.limit) || target.limit <= 0) {
    throw new RangeError(`target.limit must be a positive number, got ${String(target.limit)}`);
  }
  if (target.unit !== "ms" && target.unit !== "×") {
    throw new RangeError(`target.unit must be "ms" or "×", got ${JSON.stringify(target.unit)}`);
  }
}

/** "≤ 40 ms", "≤ 3× node -e 0". */
export function describeTarget(target: Target): string {
  checkTarget(target);
  return target.unit === "ms"
    ? `≤ ${formatNumber(target.limit)} ms`
    : `≤ ${formatNumber(target.limit, 2)}×${target.of ? ` ${target.of}` : ""}`;
}

/**
 * "met", or "not met (by 12 ms, 30% over)" / "not met (by 0.8×, 27% over)"; "not measured" when
 * there is no value. A value equal to the limit meets it.
 */
export function verdict(value: number | undefined, target: Target): string {
  checkTarget(target);
  if (value === undefined || Number.isNaN(value)) return "not measured";
  if (value <= target.limit) return "met";
  const over = value - target.limit;
  const percent = Math.round((over / target.limit) * 100);
  const by = target.unit === "ms" ? `${formatNumber(over)} ms` : `${formatNumber(over, 2)}×`;
  return `not met (by ${by}, ${percent}% over)`;
}

/** The value as its row shows it: "12.3 ms", or "2.41× (123 ms)" for a ratio. */
export function describeValue(figure: Figure): string {
  if (figure.value === undefined || Number.isNaN(figure.value)) return "—";
  if (figure.target?.unit === "×") {
    return `${formatNumber(figure.value, 2)}×${figure.ms === undefined ? "" : ` (${formatNumber(figure.ms)} ms)`}`;
  }
  return `${formatNumber(figure.value, 2)} ${figure.target ? "ms" : (figure.unit ?? "ms")}`;
}

/** A markdown table: figure, measured, target, met. */
export function figuresTable(figures: readonly Figure[]): string {
  const cell = (text: string) => text.replaceAll("|", "/").replaceAll("\n", " ");
  const rows = figures.map((f) => {
    const target = f.target ? describeTarget(f.target) : "";
    const met = f.target ? verdict(f.value, f.target) : "";
    const value = f.value === undefined && f.note ? `could not run: ${f.note}` : describeValue(f);
    return `| ${cell(f.figure)} | ${cell(value)} | ${cell(target)} | ${cell(met)} |`;
  });
  return ["| figure | measured | target | met |", "| --- | ---: | --- | --- |", ...rows].join("\n");
}

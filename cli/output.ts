/**
 * Rendering: human tables (the default, on a terminal or not, so `compute ... | less` looks the
 * same as on screen) or machine formats chosen with `--json` / `--output json|yaml`.
 *
 * Tables are borderless and left-aligned like `kubectl get`, so they also survive `grep` and
 * `awk`; numbers are right-aligned. JSON and YAML print the API's own objects, unabridged.
 */
import Table from "cli-table3";

export const OUTPUT_FORMATS = ["table", "json", "yaml"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export interface Column<T> {
  header: string;
  value: (row: T) => string | number | boolean | null | undefined;
  align?: "left" | "right";
}

export class Printer {
  constructor(
    readonly format: OutputFormat,
    private readonly out: NodeJS.WritableStream = process.stdout,
    private readonly err: NodeJS.WritableStream = process.stderr,
  ) {}

  /** Machine formats: the value as it is. */
  data(value: unknown): void {
    if (this.format === "yaml") this.out.write(toYaml(value));
    else this.out.write(`${JSON.stringify(value, null, 2)}\n`);
  }

  /** A list: a table of `columns`, or the rows themselves in JSON/YAML. */
  list<T>(rows: T[], columns: Array<Column<T>>, options: { empty: string }): void {
    if (this.format !== "table") return this.data(rows);
    if (rows.length === 0) {
      this.line(options.empty);
      return;
    }
    this.out.write(`${tableOf(rows, columns)}\n`);
  }

  /** One object: `label  value` lines in a table, or `data` in JSON/YAML. */
  record(fields: Array<[string, string | number | boolean | null | undefined]>, data: unknown): void {
    if (this.format !== "table") return this.data(data);
    const width = Math.max(...fields.map(([label]) => label.length));
    for (const [label, value] of fields) this.out.write(`${label.padEnd(width)}  ${cell(value)}\n`);
  }

  /** A sentence for people; in JSON/YAML mode `data` is printed instead. */
  message(text: string, data: unknown): void {
    if (this.format !== "table") return this.data(data);
    this.line(text);
  }

  line(text: string): void {
    this.out.write(`${text}\n`);
  }

  /** A remark for people (stderr, table mode only): never mixed into machine output. */
  note(text: string): void {
    if (this.format === "table") this.err.write(`${text}\n`);
  }
}

/** YAML text of a value; the `yaml` package is loaded only when YAML is asked for (start-up time). */
export function toYaml(value: unknown): string {
  const { stringify } = require("yaml") as typeof import("yaml");
  return stringify(value, { lineWidth: 0 });
}

function cell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined || value === "") return "-";
  if (typeof value === "boolean") return value ? "yes" : "no";
  return String(value);
}

/** The table text of `rows`: the header line, then each row (on several lines where a cell has line breaks); for callers that place lines themselves. */
export function tableOf<T>(rows: T[], columns: Array<Column<T>>): string {
  return renderTable(columns.map((c) => c.header), rows.map((r) => columns.map((c) => cell(c.value(r)))), columns.map((c) => c.align ?? "left"));
}

const BORDERLESS = {
  top: "", "top-mid": "", "top-left": "", "top-right": "",
  bottom: "", "bottom-mid": "", "bottom-left": "", "bottom-right": "",
  left: "", "left-mid": "", mid: "", "mid-mid": "",
  right: "", "right-mid": "", middle: "  ",
};

export function renderTable(head: string[], rows: string[][], aligns: Array<"left" | "right">): string {
  const table = new Table({
    head,
    chars: BORDERLESS,
    colAligns: aligns,
    // No colours: tables are read by people and by grep alike.
    style: { head: [], border: [], "padding-left": 0, "padding-right": 0, compact: true },
  });
  table.push(...rows);
  return table
    .toString()
    .split("\n")
    .map((line) => line.replace(/\s+$/, ""))
    .join("\n");
}

/** `2026-11-23T01:02:03.456Z` → `2026-11-23T01:02:03Z`: seconds are enough on screen. */
export function shortTime(value: string | null | undefined): string | undefined {
  if (!value) return undefined;
  return value.replace(/\.\d+(?=Z|[+-]\d\d:\d\d$)/, "");
}

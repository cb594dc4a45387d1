/**
 * undici, loaded on first use rather than with the module that names it: loading it costs about
 * 150 ms of CPU, which every process that loads this package paid, whether it made a request or
 * not (a program that only declares resources, the dynamic provider in a preview with nothing to
 * read, `compute --help`). Types come from `import type`, which loads nothing.
 */
type Undici = typeof import("undici");

let loaded: Undici | undefined;

export function undici(): Undici {
  loaded ??= require("undici") as Undici;
  return loaded;
}

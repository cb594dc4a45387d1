/** The package version, read at run time (dist/cli/ → ../../package.json). */
export function cliVersion(): string {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return (require("../../package.json") as { version: string }).version;
  } catch {
    return "dev";
  }
}

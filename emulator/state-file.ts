/**
 * Durable state: one JSON file in the data directory, replaced atomically.
 *
 * Every accepted mutation is written before its response is sent: the document goes to a temp
 * file, which is fsync'ed, renamed over `state.json`, and the directory is fsync'ed so the
 * rename itself survives a crash. A kill at any moment leaves either the old or the new file,
 * never a torn one. Without a data directory the store does nothing (in-memory mode).
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { join } from "node:path";

export const STATE_VERSION = 1;

export class StateFile {
  private readonly file: string | undefined;

  constructor(private readonly dataDir: string | undefined) {
    if (dataDir) {
      mkdirSync(dataDir, { recursive: true });
      this.file = join(dataDir, "state.json");
    }
  }

  get durable(): boolean {
    return this.file !== undefined;
  }

  /** The saved document, or undefined when there is none (first start, or in-memory mode). */
  load(): unknown {
    if (!this.file) return undefined;
    let text: string;
    try {
      text = readFileSync(this.file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
    return JSON.parse(text);
  }

  save(document: unknown): void {
    if (!this.file || !this.dataDir) return;
    const temp = `${this.file}.${process.pid}.tmp`;
    const fd = openSync(temp, "w");
    try {
      writeSync(fd, JSON.stringify(document));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, this.file);
    const dir = openSync(this.dataDir, "r");
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
  }
}

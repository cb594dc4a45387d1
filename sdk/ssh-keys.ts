/**
 * The account's SSH key set, changed one key at a time. The service only replaces the set
 * whole (`PUT /v2/account/ssh-keys`) and offers no compare-and-swap, so a change is a
 * read–merge–write: read the set, apply the change, read again just before writing (a set that
 * moved meanwhile starts the change over), write, and read back to verify. A writer that slips
 * in between the last read and the write is seen in the read-back, and the change is applied
 * again on top of what it wrote: a concurrent change is retried, never knowingly overwritten.
 * (Without compare-and-swap a change that lands in that last instant can still be lost; the
 * window is one round trip.)
 */
import { createHash } from "node:crypto";
import { ComputeError, NotFoundError } from "./errors";
import type { Account } from "./resources/volumes";

/** How many times a change is tried against a set other writers keep changing. */
const ATTEMPTS = 5;

/** A registered key: the line as the service holds it, and what identifies it. */
export interface RegisteredKey {
  /** `SHA256:<base64>` as `ssh-keygen -l` prints it: the key's identity, whatever its comment. */
  id: string;
  type: string;
  /** The comment, as one string (empty when none). */
  comment: string;
  line: string;
}

/** The fingerprint of a key line, `SHA256:…` without padding (as OpenSSH prints it). */
export function fingerprintOf(line: string): string {
  const body = line.trim().split(/[ \t]+/)[1] ?? "";
  return `SHA256:${createHash("sha256").update(Buffer.from(body, "base64")).digest("base64").replace(/=+$/, "")}`;
}

export function parseKey(line: string): RegisteredKey {
  const [type = "", , ...comment] = line.trim().split(/[ \t]+/);
  return { id: fingerprintOf(line), type, comment: comment.join(" "), line };
}

const same = (a: string[], b: string[]) => a.length === b.length && a.every((line, i) => line === b[i]);

export class SshKeySet {
  /** The change under way: this process's changes run one after another (a stack's keys are created side by side). */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly account: Account) {}

  async list(): Promise<RegisteredKey[]> {
    return (await this.account.sshKeys()).map(parseKey);
  }

  /** The registered key with this fingerprint; NotFoundError when there is none. */
  async get(fingerprint: string): Promise<RegisteredKey> {
    const found = (await this.list()).find((key) => key.id === fingerprint);
    if (!found) {
      throw new NotFoundError({ status: 404, title: "Not Found", detail: `no SSH key ${fingerprint} is registered on the account`, request: { method: "GET", path: "/v2/account/ssh-keys" } });
    }
    return found;
  }

  /**
   * Applies `change` to the set and returns the set as read back. `change` gets the current
   * lines and returns the wanted ones, or undefined when nothing needs to change; it may run
   * more than once (against a set that moved), so it must be a pure function of its argument.
   */
  change(change: (lines: string[]) => string[] | undefined): Promise<string[]> {
    const run = this.queue.then(() => this.changeNow(change));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async changeNow(change: (lines: string[]) => string[] | undefined): Promise<string[]> {
    let current = await this.account.sshKeys();
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      const wanted = change(current);
      if (wanted === undefined) return current;
      const before = await this.account.sshKeys();
      if (!same(before, current)) {
        current = before;
        continue;
      }
      await this.account.setSshKeys(wanted);
      const after = await this.account.sshKeys();
      if (same(after, wanted)) return after;
      // Another writer's set landed around ours: apply the change again on top of it.
      current = after;
    }
    throw new ComputeError(`the account's SSH keys kept changing during ${ATTEMPTS} attempts to change them (another writer at work); run again`);
  }

  /** Adds a line unless a key of its fingerprint is registered; returns the registered key. */
  async add(line: string): Promise<RegisteredKey> {
    const id = fingerprintOf(line);
    const lines = await this.change((current) => (current.some((l) => fingerprintOf(l) === id) ? undefined : [...current, line]));
    return parseKey(lines.find((l) => fingerprintOf(l) === id)!);
  }

  /** Rewrites the line of the key with this fingerprint (a new comment), in place; returns the registered key. */
  async rewrite(fingerprint: string, line: string): Promise<RegisteredKey> {
    const lines = await this.change((current) => {
      const at = current.findIndex((l) => fingerprintOf(l) === fingerprint);
      if (at < 0 || current[at] === line) return undefined;
      return current.map((l, i) => (i === at ? line : l));
    });
    const found = lines.find((l) => fingerprintOf(l) === fingerprint);
    if (!found) return this.get(fingerprint);
    return parseKey(found);
  }

  /** Removes the key of this fingerprint, keeping every other line as it is. */
  async remove(fingerprint: string): Promise<void> {
    await this.change((current) => {
      const kept = current.filter((l) => fingerprintOf(l) !== fingerprint);
      return kept.length === current.length ? undefined : kept;
    });
  }
}

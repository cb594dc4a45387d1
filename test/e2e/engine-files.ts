/**
 * What the end-to-end harness reads and writes in the engine's own files instead of starting a
 * `pulumi` process for it: the stack's settings file (its config, secrets encrypted as the
 * passphrase secrets manager encrypts them), the stack's outputs in its last checkpoint, and
 * the summary of its last update in the backend's history.
 *
 * Why: every `pulumi` process costs its start and, for anything that touches a secret, the
 * passphrase's key derivation (1,000,000 rounds of PBKDF2), about 0.25–0.55 s of CPU; the suites
 * ran about 700 of them around their engine operations (`config set-all`, `stack output`,
 * `stack history`, `stack export`), 12 % of the CPU of `npm test` (docs/benchmarks.md, "The test
 * run's own time"). Here the key is derived once per stack and passphrase, and the rest is file
 * reads and writes. The formats are the engine's (v3.248.0, cited per function); a mistake in
 * them does not pass silently: the engine refuses a settings file it cannot decrypt, and a value
 * this reader cannot decode throws.
 */
import { createCipheriv, createDecipheriv, pbkdf2, randomBytes } from "node:crypto";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import { parse, stringify } from "yaml";

/** Encrypts and decrypts config values and secret outputs as the stack's secrets manager does. */
export interface Crypter {
  encrypt(plaintext: string): string;
  decrypt(ciphertext: string): string;
}

const keys = new Map<string, Promise<Buffer>>();

/**
 * The passphrase secrets manager's crypter for `encryptionSalt` (`v1:<salt>:v1:<nonce>:<check>`,
 * the settings file's `encryptionsalt`): AES-256-GCM with a key of PBKDF2-SHA256, 1,000,000
 * rounds, 32 bytes (sdk/go/common/resource/config/crypt.go, NewSymmetricCrypterFromPassphrase);
 * each value `v1:<nonce>:<ciphertext and tag>`, base64. The key is checked against the salt's
 * own encrypted "pulumi" (secrets/passphrase/manager.go), so a wrong passphrase fails here.
 */
export async function passphraseCrypter(passphrase: string, encryptionSalt: string): Promise<Crypter> {
  const [version, salt] = encryptionSalt.split(":");
  if (version !== "v1" || !salt) throw new Error(`an encryption salt the harness cannot read: ${encryptionSalt.slice(0, 12)}…`);
  const cacheKey = `${passphrase}\n${encryptionSalt}`;
  let key = keys.get(cacheKey);
  if (!key) {
    key = promisify(pbkdf2)(passphrase, Buffer.from(salt, "base64"), 1_000_000, 32, "sha256");
    keys.set(cacheKey, key);
  }
  const crypter = symmetricCrypter(await key);
  const check = encryptionSalt.split(":").slice(2).join(":");
  if (crypter.decrypt(check) !== "pulumi") throw new Error("the passphrase does not open this stack's encryption salt");
  return crypter;
}

/**
 * The crypter of a checkpoint's secrets: its secrets manager's passphrase salt
 * (`secrets_providers`), or undefined where the checkpoint has no passphrase manager.
 */
export async function checkpointCrypter(deployment: { secrets_providers?: { type: string; state?: { salt?: string } } }, passphrase: string): Promise<Crypter | undefined> {
  const salt = deployment.secrets_providers?.type === "passphrase" ? deployment.secrets_providers.state?.salt : undefined;
  return salt ? passphraseCrypter(passphrase, salt) : undefined;
}

function symmetricCrypter(key: Buffer): Crypter {
  return {
    encrypt(plaintext) {
      const nonce = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, nonce);
      const sealed = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
      return `v1:${nonce.toString("base64")}:${sealed.toString("base64")}`;
    },
    decrypt(ciphertext) {
      const [version, nonce, sealed] = ciphertext.split(":");
      if (version !== "v1" || !nonce || !sealed) throw new Error("a secret value the harness cannot read");
      const bytes = Buffer.from(sealed, "base64");
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(nonce, "base64"));
      decipher.setAuthTag(bytes.subarray(bytes.length - 16));
      return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]).toString("utf8");
    },
  };
}

/** A config value as the Automation API takes it. */
export interface ConfigValue {
  value: string;
  secret?: boolean;
}

/**
 * A stack's settings file, `Pulumi.<stack>.yaml` beside the program (the file `pulumi config
 * set` writes for a self-managed backend): `encryptionsalt`, and `config` as key → string, or
 * `{ secure: <ciphertext> }` for a secret. A key without a namespace is the project's, as on the
 * command line (`trainers` is `<project>:trainers`).
 */
export class StackSettings {
  constructor(
    private readonly file: string,
    private readonly project: string,
    private readonly passphrase: string,
  ) {}

  /** The project's name, from Pulumi.yaml in `workDir`. */
  static projectOf(workDir: string): string {
    const name = (parse(readFileSync(path.join(workDir, "Pulumi.yaml"), "utf8")) as { name?: unknown }).name;
    if (typeof name !== "string") throw new Error(`${workDir}/Pulumi.yaml names no project`);
    return name;
  }

  private read(): { encryptionsalt?: string; config?: Record<string, unknown>; [other: string]: unknown } {
    if (!existsSync(this.file)) throw new Error(`${this.file} is missing: the stack was not initialized (pulumi stack init writes it)`);
    return (parse(readFileSync(this.file, "utf8")) as Record<string, unknown> | null) ?? {};
  }

  private key(key: string): string {
    return key.includes(":") ? key : `${this.project}:${key}`;
  }

  /** Sets every value of `config` in one write (what `pulumi config set-all` does). */
  async setAll(config: Record<string, ConfigValue>): Promise<void> {
    const settings = this.read();
    const entries = Object.entries(config);
    let crypter: Crypter | undefined;
    if (entries.some(([, entry]) => entry.secret)) {
      if (!settings.encryptionsalt) throw new Error(`${this.file} has no encryptionsalt to encrypt a secret with`);
      crypter = await passphraseCrypter(this.passphrase, settings.encryptionsalt);
    }
    const values = { ...(settings.config ?? {}) };
    for (const [key, entry] of entries) values[this.key(key)] = entry.secret ? { secure: crypter!.encrypt(entry.value) } : entry.value;
    this.write({ ...settings, config: values });
  }

  /** Removes `keys` (what `pulumi config rm-all` does); a key that is not set is no error. */
  removeAll(keys: string[]): void {
    const settings = this.read();
    const values = { ...(settings.config ?? {}) };
    for (const key of keys) delete values[this.key(key)];
    this.write({ ...settings, config: values });
  }

  private write(settings: Record<string, unknown>): void {
    const { config, ...rest } = settings;
    const sorted = Object.fromEntries(Object.entries((config as Record<string, unknown>) ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    // Written whole, then renamed over: an engine reading it in between never sees half a file.
    const next = `${this.file}.${process.pid}.tmp`;
    writeFileSync(next, stringify(Object.keys(sorted).length > 0 ? { ...rest, config: sorted } : rest, { lineWidth: 0 }));
    renameSync(next, this.file);
  }
}

/** How the engine marks a special value in state (sdk/go/common/resource/sig). */
const SIG_KEY = "4dabf18193072939515e22adb298388d";
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

/** Whether a value in state is a secret (an object with the secret signature). */
export function isSecretValue(value: unknown): boolean {
  return typeof value === "object" && value !== null && (value as Record<string, unknown>)[SIG_KEY] === SECRET_SIG;
}

/**
 * A property value of a checkpoint as plain JSON, secrets decrypted (what `pulumi stack output
 * --json --show-secrets` prints): a secret is `{ <sig>: <secret sig>, ciphertext }` whose
 * plaintext is the value's own JSON (pkg/resource/stack/secrets.go), or `plaintext` where the
 * stack had no secrets manager. Any other signature (an asset, an archive, a resource
 * reference) throws: no output of the suites' programs is one, and a guess would be wrong.
 */
export function plainValue(value: unknown, crypter: Crypter | undefined): unknown {
  if (Array.isArray(value)) return value.map((item) => plainValue(item, crypter));
  if (typeof value !== "object" || value === null) return value;
  const object = value as Record<string, unknown>;
  if (SIG_KEY in object) {
    if (object[SIG_KEY] !== SECRET_SIG) throw new Error(`an output of signature ${String(object[SIG_KEY])} the harness cannot decode`);
    if (typeof object.plaintext === "string") return plainValue(JSON.parse(object.plaintext), crypter);
    if (typeof object.ciphertext !== "string") throw new Error("a secret output with neither plaintext nor ciphertext");
    if (!crypter) throw new Error("a secret output in a stack without a passphrase encryption salt");
    return plainValue(JSON.parse(crypter.decrypt(object.ciphertext)), crypter);
  }
  return Object.fromEntries(Object.entries(object).map(([key, item]) => [key, plainValue(item, crypter)]));
}

/**
 * One update of the backend's history (`<stack>-<time>.history.json`, pkg/backend/diy/state.go),
 * as the Automation API's `UpdateSummary` has it: times as dates (the file has Unix seconds).
 */
export function updateSummary(historyJson: string): Record<string, unknown> & { result: string } {
  const update = JSON.parse(historyJson) as Record<string, unknown> & { result: string; startTime?: number; endTime?: number };
  return {
    ...update,
    ...(update.startTime !== undefined ? { startTime: new Date(update.startTime * 1000) } : {}),
    ...(update.endTime !== undefined ? { endTime: new Date(update.endTime * 1000) } : {}),
  };
}

/**
 * A checkpoint's values with every secret's ciphertext replaced by its plaintext, as `pulumi
 * stack export --show-secrets` prints them (`{ <sig>: <secret sig>, plaintext: <JSON> }`): two
 * checkpoints then compare by what their secrets hold, not by their nonces (the engine
 * encrypts a secret anew whenever a step writes it).
 */
export function secretsShown<T>(value: T, crypter: Crypter | undefined): T {
  const shown = (item: unknown): unknown => {
    if (Array.isArray(item)) return item.map(shown);
    if (typeof item !== "object" || item === null) return item;
    if (isSecretValue(item)) return { [SIG_KEY]: SECRET_SIG, plaintext: JSON.stringify(plainValue(item, crypter)) };
    return Object.fromEntries(Object.entries(item).map(([key, inner]) => [key, shown(inner)]));
  };
  return shown(value) as T;
}

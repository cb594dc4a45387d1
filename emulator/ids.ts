/** Opaque identifiers in the shapes the real service uses (short lowercase base-36 strings). */
import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

export function randomId(length = 10, prefix = ""): string {
  const bytes = randomBytes(length);
  let out = prefix;
  for (let i = 0; i < length; i++) out += ALPHABET[bytes[i] % ALPHABET.length];
  return out;
}

/** A password good enough for a development Jupyter server (the real service generates one too). */
export function generatedPassword(): string {
  return randomBytes(12).toString("base64url");
}

/** Deterministic 32-bit hash (FNV-1a): stable pseudo-randomness for ports, IPs and log lines. */
export function hash32(...parts: Array<string | number>): number {
  let h = 0x811c9dc5;
  for (const part of parts) {
    const text = String(part);
    for (let i = 0; i < text.length; i++) {
      h ^= text.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
    h ^= 0x2f;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

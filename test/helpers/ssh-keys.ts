/** SSH public keys for tests: fresh ones, so a test never registers a key another test or user has. */
import { generateKeyPairSync } from "node:crypto";

/** A fresh ed25519 public key as one authorized_keys line, as `ssh-keygen` writes it. */
export function newPublicKey(comment = "me@laptop"): string {
  const der = generateKeyPairSync("ed25519").publicKey.export({ format: "der", type: "spki" });
  const raw = der.subarray(der.length - 32);
  // The SSH wire format: each part preceded by its length (RFC 4253).
  const field = (bytes: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    return Buffer.concat([length, bytes]);
  };
  return `ssh-ed25519 ${Buffer.concat([field(Buffer.from("ssh-ed25519")), field(raw)]).toString("base64")} ${comment}`;
}

/**
 * Container registry credentials (reference OpenAPI `/v2/registries`), as stored. The username
 * and password are write-only: no answer carries them. The password is kept only as its
 * SHA-256 (hex), which is all the control plane shows: the emulator never pulls an image, so it
 * needs nothing more, and a state file or state dump then holds no secret in plaintext.
 */
import { createHash } from "node:crypto";
import type { Fixture } from "../fixture";
import { randomId } from "../ids";
import { TableModule } from "../records";

export interface RegistryRecord {
  id: string;
  accountId: string;
  name: string;
  username: string;
  passwordSha256: string;
}

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

export class Registries extends TableModule<RegistryRecord> {
  constructor() {
    super("registry credential");
  }

  protected override seed(fixture: Fixture): RegistryRecord[] {
    return fixture.registries.map(({ password, ...fields }) => ({ ...fields, passwordSha256: sha256(password) }));
  }

  /** State files from before registry credentials existed have no slice: start from their fixture's. */
  override restore(slice: unknown, fixture: Fixture): void {
    this.records.load(slice === undefined ? this.seed(fixture) : (slice as RegistryRecord[]));
  }

  /** A credential of the account; 404 otherwise (another account's included). */
  own(accountId: string, id: string): RegistryRecord {
    return this.records.owned(accountId, id);
  }

  create(accountId: string, fields: { name: string; username: string; password: string }): RegistryRecord {
    return this.records.add({ id: randomId(8), accountId, name: fields.name, username: fields.username, passwordSha256: sha256(fields.password) });
  }

  delete(registry: RegistryRecord): void {
    this.records.delete(registry);
  }
}

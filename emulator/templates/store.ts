/**
 * Templates: the caller's own and the public catalog, as stored.
 *
 * `resolve` is the one lookup pod, sandbox and serverless creation use (through
 * placement/rules.ts): an own or public template, 404 for an unknown id or another account's
 * private template (never 403, so no one learns that it exists).
 */
import { DEFAULT_CONTAINER_DISK_GB, storedArgs, type CreateTemplateRequest, type UpdateTemplateRequest } from "../../contract";
import type { Fixture, TemplateFixture } from "../fixture";
import { notFound } from "../http";
import { randomId } from "../ids";
import { TableModule } from "../records";

export type TemplateRecord = TemplateFixture;

export class Templates extends TableModule<TemplateRecord> {
  constructor() {
    super("template");
  }

  protected override seed(fixture: Fixture): TemplateRecord[] {
    return fixture.templates.map((t) => structuredClone(t));
  }

  /** An own or public template; 404 otherwise. */
  resolve(accountId: string, id: string): TemplateRecord {
    const template = this.records.get(id);
    if (!template || (template.accountId !== accountId && !template.public)) throw notFound("template", id);
    return template;
  }

  /** An own template (the only ones a caller may change); 404 otherwise. */
  own(accountId: string, id: string): TemplateRecord {
    return this.records.owned(accountId, id);
  }

  /** Created templates start SSH and Jupyter unless told not to, as console-made ones do. */
  create(accountId: string, body: CreateTemplateRequest): TemplateRecord {
    const template: TemplateRecord = {
      id: randomId(10),
      accountId,
      name: body.name,
      image: body.image,
      args: storedArgs(body).args ?? "",
      disk: body.disk ?? DEFAULT_CONTAINER_DISK_GB,
      env: body.env ?? {},
      ports: body.ports ?? [],
      registry: body.registry ?? null,
      mounts: body.mounts ?? {},
      serverless: body.serverless ?? false,
      public: body.public ?? false,
      source: body.public ? "community" : undefined,
      category: body.category ?? "NVIDIA",
      startSsh: body.startSsh ?? true,
      startJupyter: body.startJupyter ?? true,
      allowedCudaVersions: body.allowedCudaVersions ?? [],
    };
    return this.records.add(template);
  }

  /**
   * PATCH (reference OpenAPI): only the members sent change, and a sent one replaces what was
   * there (`allowedCudaVersions: []` clears the constraint, `env` is the new map). `mounts`
   * omitted or `{}` leaves the mount as it was: a template has at most one persistent mount,
   * and only a sent `persistent` replaces it. Later edits never reach pods or endpoints created
   * from the template (contract rule 5).
   */
  update(template: TemplateRecord, body: UpdateTemplateRequest): void {
    const { cmd: _cmd, entrypoint: _entrypoint, args: _args, mounts, ...rest } = body;
    const args = storedArgs(body).args;
    Object.assign(template, rest);
    if (args !== undefined) template.args = args;
    if (mounts?.persistent !== undefined) template.mounts = { ...template.mounts, persistent: mounts.persistent };
    if (rest.public !== undefined) template.source = rest.public ? (template.source ?? "community") : undefined;
  }

  /** Ids of the account's own templates that name this registry credential. */
  /** A deleted credential: the account's templates that named it lose the reference (public OpenAPI). */
  dropRegistry(accountId: string, registryId: string): void {
    for (const template of this.records.all()) if (template.accountId === accountId && template.registry === registryId) template.registry = null;
  }

  templatesUsingRegistry(accountId: string, registryId: string): string[] {
    return this.records
      .all()
      .filter((t) => t.accountId === accountId && t.registry === registryId)
      .map((t) => t.id);
  }

  delete(template: TemplateRecord): void {
    this.records.delete(template);
  }
}

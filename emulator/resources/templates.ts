/**
 * Templates: the caller's own (`/v2/templates`) and the public catalog (`/v2/catalog/templates`).
 *
 * `resolve` is the one lookup pod, sandbox and serverless creation use: an own or public
 * template, 404 for an unknown id or another account's private template (never 403, so no one
 * learns that it exists).
 */
import { CreateTemplateRequest, UpdateTemplateRequest, storedArgs } from "../../contract";
import type { Fixture, TemplateFixture } from "../fixture";
import { json, noContent, notFound } from "../http";
import { randomId } from "../ids";
import type { ResourceModule } from "../module";
import { QueryReader } from "../query";
import { route, type Route } from "../router";

export type TemplateRecord = TemplateFixture;

export class Templates implements ResourceModule {
  readonly name = "templates";
  private templates = new Map<string, TemplateRecord>();

  reset(fixture: Fixture): void {
    this.templates = new Map(fixture.templates.map((t) => [t.id, structuredClone(t)]));
  }

  snapshot(): TemplateRecord[] {
    return [...this.templates.values()];
  }

  restore(slice: unknown): void {
    this.templates = new Map((slice as TemplateRecord[]).map((t) => [t.id, t]));
  }

  all(): TemplateRecord[] {
    return [...this.templates.values()];
  }

  /** An own or public template; 404 otherwise. */
  resolve(accountId: string, id: string): TemplateRecord {
    const template = this.templates.get(id);
    if (!template || (template.accountId !== accountId && !template.public)) throw notFound("template", id);
    return template;
  }

  view(template: TemplateRecord, accountId: string) {
    const { accountId: owner, source: _source, ...fields } = template;
    // The registry credential is private to the owner (reference OpenAPI: null for others).
    return { ...fields, registry: owner === accountId ? template.registry : null };
  }

  private own(accountId: string, id: string): TemplateRecord {
    const template = this.templates.get(id);
    if (!template || template.accountId !== accountId) throw notFound("template", id);
    return template;
  }

  routes(): Array<Route<unknown>> {
    return [
      route({
        method: "GET",
        path: "/v2/catalog/templates",
        family: "catalog",
        handle: (op) => {
          const q = new QueryReader(op.query);
          const source = q.enumValue("source", ["official", "verified", "community"] as const) ?? "official";
          q.done();
          const list = this.all()
            .filter((t) => t.public && (t.source ?? "community") === source)
            .slice(0, 100)
            .map((t) => this.view(t, op.account.id));
          return json(200, { templates: list });
        },
      }),
      route({
        method: "GET",
        path: "/v2/templates",
        family: "templates",
        handle: (op) =>
          json(200, {
            templates: this.all()
              .filter((t) => t.accountId === op.account.id)
              .map((t) => this.view(t, op.account.id)),
          }),
      }),
      route({
        method: "GET",
        path: "/v2/templates/:id",
        family: "templates",
        handle: (op) => json(200, this.view(this.resolve(op.account.id, op.params.id), op.account.id)),
      }),
      route({
        method: "POST",
        path: "/v2/templates",
        family: "templates",
        body: CreateTemplateRequest,
        crossField: (body) => {
          const conflict = storedArgs(body).conflict;
          return conflict ? [conflict] : [];
        },
        handle: (op) => {
          const body = op.body;
          const template: TemplateRecord = {
            id: randomId(10),
            accountId: op.account.id,
            name: body.name,
            image: body.image,
            args: storedArgs(body).args ?? "",
            disk: body.disk ?? 20,
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
          this.templates.set(template.id, template);
          return json(201, this.view(template, op.account.id));
        },
      }),
      route({
        method: "PATCH",
        path: "/v2/templates/:id",
        family: "templates",
        body: UpdateTemplateRequest,
        crossField: (body) => {
          const conflict = storedArgs(body).conflict;
          return conflict ? [conflict] : [];
        },
        // Later edits never reach pods created from the template (contract rule 5).
        handle: (op) => {
          const template = this.own(op.account.id, op.params.id);
          const { cmd: _cmd, entrypoint: _entrypoint, args: _args, ...rest } = op.body;
          const args = storedArgs(op.body).args;
          Object.assign(template, rest);
          if (args !== undefined) template.args = args;
          if (rest.public !== undefined) template.source = rest.public ? (template.source ?? "community") : undefined;
          return json(200, this.view(template, op.account.id));
        },
      }),
      route({
        method: "DELETE",
        path: "/v2/templates/:id",
        family: "templates",
        handle: (op) => {
          const template = this.own(op.account.id, op.params.id);
          this.templates.delete(template.id);
          return noContent();
        },
      }),
    ];
  }
}

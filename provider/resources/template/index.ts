/**
 * `compute:index:Template`: a container configuration pods, sandboxes and serverless endpoints
 * start from. Every input changes in place (PATCH). What was made from a template keeps what
 * the template gave it at create (v2 template rule 5): when a run changes a template, the
 * template and every pod and sandbox of the stack made from it say so at preview
 * (`context.templates`), and nothing is replaced behind the user's back.
 *
 * It has no labels, and its env reaches every pod made from it, so its owner mark rides in
 * its name (wire.ts).
 */
import { CreateTemplateRequest, DEFAULT_CONTAINER_DISK_GB, storedArgs, type Template, type UpdateTemplateRequest } from "../../../sdk";
import { createFields, inputsOf, same, type CheckedInputs, type OutputList, type OutputValues, type Props, type ResourceDefinition } from "../definition";
import { CHANGES, EXAMPLE } from "./example";
import { markInName, presentOnly, programName, renamedKeepingMark, schemaViolations, toWire, uniquelyNamed } from "../wire";
import { TEMPLATE_INPUTS } from "./inputs";

export const TEMPLATE_OUTPUTS = {
  templateId: { type: "string", fixed: true, doc: "The service's template id (also the resource id): what `templateId` of a pod, sandbox or endpoint takes." },
  serviceName: { type: "string", doc: "The name the service holds: the program's name followed by the owner mark." },
  appliedArgs: { type: "string", doc: "The command as the service stores it." },
} as const satisfies OutputList;

export type TemplateInputs = CheckedInputs<typeof TEMPLATE_INPUTS>;
type TemplateFacts = OutputValues<typeof TEMPLATE_OUTPUTS>;

const RENAMES = { registryId: "registry", isPublic: "public" } as const;
const FIELDS = createFields(TEMPLATE_INPUTS);
const COMMAND = ["args", "cmd", "entrypoint"] as const;

/**
 * The wire body: the public API's template requests take the command as `args` only (no
 * `cmd`/`entrypoint` members), so exec-form arrays are folded into it, as for a pod.
 */
function wireRequest(inputs: Props): Props {
  const body = toWire(inputs, FIELDS, RENAMES);
  if (body.cmd !== undefined || body.entrypoint !== undefined) {
    const { args } = storedArgs(body);
    delete body.cmd;
    delete body.entrypoint;
    if (args !== undefined) body.args = args;
  }
  return body;
}

function violations(inputs: TemplateInputs): string[] {
  const given = toWire(inputs, FIELDS, RENAMES);
  const conflict = storedArgs(given).conflict;
  return [...schemaViolations(CreateTemplateRequest, given, RENAMES), ...(conflict ? [conflict] : [])];
}

/** The PATCH for the inputs that changed (the name keeps the mark the service name carries). */
function patchOf(changed: string[], values: TemplateInputs, live: Template): UpdateTemplateRequest {
  const patch: Props = {};
  for (const key of changed) {
    if (key === "name") patch.name = renamedKeepingMark(live.name, values.name);
    else if ((COMMAND as readonly string[]).includes(key)) continue;
    else if (values[key as keyof TemplateInputs] !== undefined) patch[RENAMES[key as keyof typeof RENAMES] ?? key] = values[key as keyof TemplateInputs];
  }
  // A command is sent whole, as one `args` string: the arrays and `args` describe one command.
  if (changed.some((key) => (COMMAND as readonly string[]).includes(key))) {
    const args = wireRequest({ args: values.args, cmd: values.cmd, entrypoint: values.entrypoint }).args;
    if (args !== undefined) patch.args = args;
  }
  return patch as UpdateTemplateRequest;
}

/** The shortest inputs that describe a template: the service's defaults left out. */
function imported(template: Template): Props {
  const inputs: Props = { name: programName(template.name), image: template.image };
  if (template.args) inputs.args = template.args;
  if (template.disk !== undefined && template.disk !== DEFAULT_CONTAINER_DISK_GB) inputs.disk = template.disk;
  if (template.env && Object.keys(template.env).length > 0) inputs.env = template.env;
  if (template.ports && template.ports.length > 0) inputs.ports = template.ports;
  if (template.registry) inputs.registryId = template.registry;
  if (template.mounts?.persistent) inputs.mounts = { persistent: { size: template.mounts.persistent.size, path: template.mounts.persistent.path } };
  if (template.category && template.category !== "NVIDIA") inputs.category = template.category;
  if (template.public) inputs.isPublic = true;
  if (template.serverless) inputs.serverless = true;
  if (!template.startSsh) inputs.startSsh = false;
  if (!template.startJupyter) inputs.startJupyter = false;
  if (template.allowedCudaVersions.length > 0) inputs.allowedCudaVersions = template.allowedCudaVersions;
  return inputs;
}

/** What the service holds for each input the program set (drift shows; the command is compared as given). */
function refreshed(olds: Props, template: Template): Props {
  const inputs = inputsOf(TEMPLATE_INPUTS, olds);
  const live = imported(template);
  const defaults: Props = { disk: DEFAULT_CONTAINER_DISK_GB, category: "NVIDIA", isPublic: false, serverless: false, startSsh: true, startJupyter: true, allowedCudaVersions: [], env: {}, ports: [] };
  for (const key of Object.keys(inputs)) {
    if (!(key in TEMPLATE_INPUTS) || (COMMAND as readonly string[]).includes(key)) continue;
    // What the service no longer holds (a deleted credential's reference) shows as drift.
    if (key in live) inputs[key] = live[key];
    else if (key in defaults) inputs[key] = defaults[key];
    else delete inputs[key];
  }
  inputs.name = live.name;
  return inputs;
}

export const templateResource = {
  name: "Template",
  kind: "template",
  description: "A container configuration that pods, sandboxes and serverless endpoints start from.",
  inputs: TEMPLATE_INPUTS,
  outputs: TEMPLATE_OUTPUTS,
  idOutput: "templateId",
  deletedAs: "deleted",

  family: (api) => ({ get: (id) => api.templates.get(id), page: () => api.templates.page(), delete: (id) => api.templates.delete(id) }),
  states: presentOnly("templateId"),
  owner: markInName,

  violations,
  // Env values may be secrets, and the mark rides in a name: only their names count.
  markSpec: (request) => ({ ...request, name: undefined, env: Object.keys((request.env as Props | undefined) ?? {}).sort() }),
  create: async ({ api }, request) => ({ live: await api.templates.create(wireRequest(request) as CreateTemplateRequest, { uniqueName: uniquelyNamed(request) }) }),
  async settle(context, inputs, template) {
    // An adopted template may carry a name generated by the interrupted run.
    if (programName(template.name) === inputs.name) return template;
    return context.api.templates.update(template.id, { name: renamedKeepingMark(template.name, inputs.name) });
  },

  facts: (template): TemplateFacts => ({ templateId: template.id, serviceName: template.name, appliedArgs: template.args ?? "" }),
  imported,
  refreshed,
  async previewDiff(context, id, _olds, news, diff) {
    const fields = diff.updates.filter((key) => key !== "name" && key !== "namePrefix");
    if (fields.length === 0) return;
    context.templates.note(id, { name: news.name, fields });
    context.report(`changes ${fields.join(", ")}: pods and sandboxes already made from it keep their settings (a template is applied once, at create)`);
  },
  async update(context, id, olds, news) {
    const api = context.api.templates;
    const live = await api.get(id);
    const changed = (Object.keys(TEMPLATE_INPUTS) as Array<keyof TemplateInputs>).filter((key) => !same(olds[key], news[key]));
    const patch = patchOf(changed, news, live);
    if (Object.keys(patch).length === 0) return undefined;
    const updated = await api.update(id, patch);
    context.report(`updated ${Object.keys(patch).join(", ")}`);
    return { live: updated };
  },
  example: EXAMPLE,
  exampleChanges: CHANGES,
} satisfies ResourceDefinition<TemplateInputs, Template, TemplateFacts>;

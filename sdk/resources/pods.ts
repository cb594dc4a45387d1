/** Pods: create (duplicate-safe), read, list, update, actions, delete, logs. */
import { createOnce, type HttpCore } from "../http";
import { streamLogs, type LogStreamOptions } from "../logs";
import { ListPodsResponse, POD_ACTIVE_STATUSES, Pod, createWithStoredArgs, type CreatePodRequest, type PodActionName, type SetAside, type UpdatePodRequest } from "../../contract";
import { assertValid, createPodViolations, updatePodViolations } from "../validate";

export class Pods {
  constructor(private readonly http: HttpCore) {}

  /**
   * Creates a pod, never twice. After a 5xx or a lost connection the attempt may have created
   * the pod: before sending again, the pod list is searched for one of the same name created
   * after the attempt began, and that pod is returned instead. A 2xx whose body cannot be read
   * is never resent either: the pod is read back by the id the body carries (see
   * `HttpCore.request`). Exec-form `cmd`/`entrypoint` travel as the stored `args` string.
   */
  async create(request: CreatePodRequest, options: { signal?: AbortSignal; validate?: boolean } = {}): Promise<Pod> {
    if (options.validate !== false) assertValid("pod create request", request, createPodViolations(request));
    return createOnce(this.http, this, { path: "/v2/pods", body: createWithStoredArgs(request), schema: Pod, signal: options.signal });
  }

  get(id: string, options: { signal?: AbortSignal } = {}): Promise<Pod> {
    return this.http.request({ method: "GET", path: `/v2/pods/${encodeURIComponent(id)}`, schema: Pod, signal: options.signal });
  }

  async list(options: { includeClusterPods?: boolean; signal?: AbortSignal } = {}): Promise<Pod[]> {
    return (await this.page(options)).items;
  }

  /** The list with the pods it could not read set aside (id, name and violations of each). */
  async page(options: { includeClusterPods?: boolean; signal?: AbortSignal } = {}): Promise<{ items: Pod[]; setAside: SetAside[] }> {
    const response = await this.http.request({
      method: "GET",
      path: "/v2/pods",
      query: { includeClusterPods: options.includeClusterPods ? "true" : undefined },
      schema: ListPodsResponse,
      signal: options.signal,
    });
    return { items: response.pods, setAside: response.setAside };
  }

  async update(id: string, patch: UpdatePodRequest, options: { signal?: AbortSignal; validate?: boolean } = {}): Promise<Pod> {
    if (options.validate !== false) assertValid("pod update request", patch, updatePodViolations(patch));
    return this.http.request({
      method: "PATCH",
      path: `/v2/pods/${encodeURIComponent(id)}`,
      body: patch,
      schema: Pod,
      signal: options.signal,
    });
  }

  /**
   * Runs a lifecycle action. `terminate` answers 204 (no pod); the others the updated pod.
   * A lost answer is recovered by reading the pod rather than repeating the action (a second
   * `stop` would be a 409).
   */
  async action(id: string, action: PodActionName, options: { signal?: AbortSignal } = {}): Promise<Pod | undefined> {
    return this.http.request<Pod | undefined>({
      method: "POST",
      path: `/v2/pods/${encodeURIComponent(id)}/action`,
      body: { action },
      schema: action === "terminate" ? undefined : Pod,
      signal: options.signal,
      recover: async () => {
        const pod = await this.get(id, options).catch(() => undefined);
        if (!pod) return undefined;
        const settled: Record<PodActionName, string[]> = {
          start: ["STARTING", "RUNNING"],
          stop: ["EXITED"],
          // RUNNING is also the status before a restart: only STARTING proves it happened.
          restart: ["STARTING"],
          terminate: ["TERMINATED"],
        };
        return settled[action].includes(pod.status) ? pod : undefined;
      },
    });
  }

  start(id: string, options?: { signal?: AbortSignal }) {
    return this.action(id, "start", options) as Promise<Pod>;
  }
  stop(id: string, options?: { signal?: AbortSignal }) {
    return this.action(id, "stop", options) as Promise<Pod>;
  }
  restart(id: string, options?: { signal?: AbortSignal }) {
    return this.action(id, "restart", options) as Promise<Pod>;
  }

  /** Deletes (terminates) a pod: 204. A 404 is returned to the caller, who decides if gone is fine. */
  async delete(id: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    await this.http.request({ method: "DELETE", path: `/v2/pods/${encodeURIComponent(id)}`, signal: options.signal });
  }

  /**
   * The pod's log stream. The public API ends a pod's stream with a plain 200 (it lists no 409
   * for pod logs), so in follow mode whether more lines can come is the pod's status, read when
   * the stream ends: a pod that is no longer active (stopped, failed or gone) ends the iterator.
   */
  logs(id: string, options: LogStreamOptions = {}) {
    const isFinished = async () => !POD_ACTIVE_STATUSES.has((await this.get(id, { signal: options.signal })).status);
    return streamLogs(this.http, `/v2/pods/${encodeURIComponent(id)}/logs`, { isFinished, ...options });
  }
}

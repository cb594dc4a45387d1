/**
 * `ComputeClient`: the typed client of the Compute Service v2 API. Resource namespaces are thin
 * wrappers over the one request path in `http.ts`.
 */
import { createHash } from "node:crypto";
import { resolveConfig, type ClientOptions } from "./config";
import { HttpCore } from "./http";
import { Billing } from "./resources/billing";
import { Catalog } from "./resources/catalog";
import { Clusters, type ClusterWithMembers } from "./resources/clusters";
import { Hub } from "./resources/hub";
import { Pods } from "./resources/pods";
import { Sandboxes } from "./resources/sandboxes";
import { Registries } from "./resources/registries";
import { Serverless } from "./resources/serverless";
import { Templates } from "./resources/templates";
import { Account, NetworkVolumes } from "./resources/volumes";
import type { Pod, Sandbox } from "../contract";
import { SshKeySet } from "./ssh-keys";
import { Watcher, type WatcherOptions } from "./watch";

export class ComputeClient {
  readonly http: HttpCore;
  readonly pods: Pods;
  readonly sandboxes: Sandboxes;
  readonly catalog: Catalog;
  readonly hub: Hub;
  readonly serverless: Serverless;
  readonly networkVolumes: NetworkVolumes;
  readonly account: Account;
  readonly templates: Templates;
  readonly registries: Registries;
  readonly clusters: Clusters;
  /** What the account spent, in time buckets, per family and per resource. */
  readonly billing: Billing;
  /** The account's SSH keys, changed one key at a time (read–merge–write). */
  readonly sshKeys: SshKeySet;
  /** Shared status polling for pods (one list request answers every waiting pod). */
  readonly podWatcher: Watcher<Pod>;
  /** Shared status polling for sandboxes. */
  readonly sandboxWatcher: Watcher<Sandbox>;
  /** Shared status polling for clusters, each with its members. */
  readonly clusterWatcher: Watcher<ClusterWithMembers>;

  constructor(options: ClientOptions & { watch?: WatcherOptions } = {}) {
    this.http = new HttpCore(options);
    this.pods = new Pods(this.http);
    this.sandboxes = new Sandboxes(this.http);
    this.catalog = new Catalog(this.http);
    this.hub = new Hub(this.http);
    this.serverless = new Serverless(this.http);
    this.networkVolumes = new NetworkVolumes(this.http);
    this.account = new Account(this.http);
    this.templates = new Templates(this.http);
    this.registries = new Registries(this.http);
    this.clusters = new Clusters(this.http, this.pods);
    this.billing = new Billing(this.http);
    this.sshKeys = new SshKeySet(this.account);
    const watch: WatcherOptions = { quotaSpacingMs: () => this.http.pollSpacingMs(), ...options.watch };
    this.podWatcher = new Watcher<Pod>({ getOne: (id) => this.pods.get(id), listAll: () => this.pods.page({ includeClusterPods: false }) }, watch);
    this.sandboxWatcher = new Watcher<Sandbox>({ getOne: (id) => this.sandboxes.get(id), listAll: () => this.sandboxes.page() }, watch);
    this.clusterWatcher = new Watcher<ClusterWithMembers>({ getOne: (id) => this.clusters.withMembers(id), listAll: () => this.clusters.pageWithMembers() }, watch);
  }

  /**
   * One client per (service, credential, team) for the whole process, so that every resource
   * of a stack shares its connection pool and its status polls.
   */
  static shared(options: ClientOptions & { watch?: WatcherOptions } = {}): ComputeClient {
    const { baseUrl, apiKey, teamId } = resolveConfig(options); // fails early on missing settings
    const registry = ((globalThis as Record<symbol, unknown>)[SHARED] ??= new Map<string, ComputeClient>()) as Map<string, ComputeClient>;
    const id = createHash("sha256").update(`${baseUrl}\n${apiKey}\n${teamId ?? ""}`).digest("hex");
    let client = registry.get(id);
    if (!client) {
      client = new ComputeClient(options);
      registry.set(id, client);
    }
    return client;
  }

  close(): Promise<void> {
    return this.http.close();
  }
}

const SHARED = Symbol.for("pulumi-compute.shared-clients");

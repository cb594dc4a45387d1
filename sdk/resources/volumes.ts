/** Network volumes (pods and endpoints mount them) and the account's registered SSH keys. */
import { createNamedOnce, type HttpCore } from "../http";
import { ListNetworkVolumesResponse, NetworkVolume, SshKeys, type CreateNetworkVolumeRequest, type SetAside, type UpdateNetworkVolumeRequest } from "../../contract";

export class NetworkVolumes {
  constructor(private readonly http: HttpCore) {}

  /**
   * Volumes carry no creation time, so a lost answer cannot be told apart from an older volume
   * of the same name: a failed create is reported, never sent twice, unless `uniqueName` says
   * the name is this create's alone (it carries an owner mark), when the list is searched for
   * it. An answer that cannot be read but names the volume's id is read back by that id.
   */
  create(request: CreateNetworkVolumeRequest, options: { signal?: AbortSignal; uniqueName?: boolean } = {}) {
    return createNamedOnce(this.http, this, { path: "/v2/network-volumes", body: request, schema: NetworkVolume, signal: options.signal, uniqueName: options.uniqueName ?? false });
  }

  get(id: string, options: { signal?: AbortSignal } = {}) {
    return this.http.request({ method: "GET", path: `/v2/network-volumes/${encodeURIComponent(id)}`, schema: NetworkVolume, signal: options.signal });
  }

  list(options: { signal?: AbortSignal } = {}) {
    return this.http.getList("/v2/network-volumes", ListNetworkVolumesResponse, "networkVolumes", options);
  }

  /** The list with the volumes it could not read set aside. */
  async page(options: { signal?: AbortSignal } = {}): Promise<{ items: NetworkVolume[]; setAside: SetAside[] }> {
    const response = await this.http.request({ method: "GET", path: "/v2/network-volumes", schema: ListNetworkVolumesResponse, signal: options.signal });
    return { items: response.networkVolumes, setAside: response.setAside };
  }

  /** Renames or grows a volume (storage never shrinks: the service refuses a smaller size). */
  update(id: string, request: UpdateNetworkVolumeRequest, options: { signal?: AbortSignal } = {}) {
    return this.http.request({ method: "PATCH", path: `/v2/network-volumes/${encodeURIComponent(id)}`, body: request, schema: NetworkVolume, signal: options.signal });
  }

  async delete(id: string, options: { signal?: AbortSignal } = {}) {
    await this.http.request({ method: "DELETE", path: `/v2/network-volumes/${encodeURIComponent(id)}`, signal: options.signal });
  }
}

export class Account {
  constructor(private readonly http: HttpCore) {}

  async sshKeys(options: { signal?: AbortSignal } = {}) {
    return (await this.http.request({ method: "GET", path: "/v2/account/ssh-keys", schema: SshKeys, signal: options.signal })).keys;
  }

  /** Replaces the registered SSH public keys whole (injected as `PUBLIC_KEY` into pods with `startSsh`). */
  async setSshKeys(keys: string[], options: { signal?: AbortSignal } = {}) {
    return (await this.http.request({ method: "PUT", path: "/v2/account/ssh-keys", body: { keys }, schema: SshKeys, signal: options.signal })).keys;
  }
}

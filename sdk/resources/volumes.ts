/** Network volumes (pods mount them) and the account's registered SSH keys. */
import type { HttpCore } from "../http";
import { ListNetworkVolumesResponse, NetworkVolume, SshKeys, type CreateNetworkVolumeRequest } from "../../contract";

export class NetworkVolumes {
  constructor(private readonly http: HttpCore) {}

  create(request: CreateNetworkVolumeRequest, options: { signal?: AbortSignal } = {}) {
    return this.http.request({
      method: "POST",
      path: "/v2/network-volumes",
      body: request,
      schema: NetworkVolume,
      signal: options.signal,
      // Volumes carry no creation time, so a lost answer cannot be told apart from an older
      // volume of the same name: a failed create is reported, never sent twice. An answer that
      // cannot be read but names the volume's id is read back by that id.
      readBack: (id) => this.get(id, options),
    });
  }

  get(id: string, options: { signal?: AbortSignal } = {}) {
    return this.http.request({ method: "GET", path: `/v2/network-volumes/${encodeURIComponent(id)}`, schema: NetworkVolume, signal: options.signal });
  }

  list(options: { signal?: AbortSignal } = {}) {
    return this.http.getList("/v2/network-volumes", ListNetworkVolumesResponse, "networkVolumes", options);
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

  /** Replaces the registered SSH public keys (injected as `PUBLIC_KEY` into pods with `startSsh`). */
  async setSshKeys(keys: string[], options: { signal?: AbortSignal } = {}) {
    return (await this.http.request({ method: "PUT", path: "/v2/account/ssh-keys", body: { keys }, schema: SshKeys, signal: options.signal })).keys;
  }
}

/**
 * A cluster's private overlay network (reference OpenAPI `ClusterNetwork`): each cluster of an
 * account gets a /16 of its own, `10.<n>.0.0/16` with n from 65 (the fixture's Ray cluster is on
 * 10.65), and the member of rank r the address `10.<n>.0.<r + 2>` (.0 is the network, .1 its
 * gateway); 250 members at most, so every address fits the last byte. Decision 38 of
 * docs/api-contract.md.
 */
import { hash32 } from "../ids";

/** The second bytes an account's overlays may use: 190 clusters of one account at a time. */
const FIRST = 65;
const LAST = 254;

/** The UDP port VXLAN traffic uses (IANA). */
export const VXLAN_PORT = 4789;

export interface Overlay {
  cidr: string;
  vxlanId: number;
  vxlanPort: number;
}

/** The second byte of a `10.n.…` address or CIDR, if it is one of ours. */
function secondByte(address: string): number | undefined {
  const match = /^10\.(\d+)\./.exec(address);
  return match ? Number(match[1]) : undefined;
}

/** The /16 holding a member's address (fixture clusters name their addresses, not their network). */
export function cidrOf(address: string): string | undefined {
  const n = secondByte(address);
  return n === undefined ? undefined : `10.${n}.0.0/16`;
}

/** The first /16 none of `taken` (CIDRs of the account's clusters) uses; undefined when all are. */
export function freeCidr(taken: string[]): string | undefined {
  const used = new Set(taken.map(secondByte));
  for (let n = FIRST; n <= LAST; n++) if (!used.has(n)) return `10.${n}.0.0/16`;
  return undefined;
}

/** How many overlays an account may hold at once (the detail of a refusal says it). */
export const OVERLAYS_PER_ACCOUNT = LAST - FIRST + 1;

export function overlay(clusterId: string, cidr: string): Overlay {
  // A 24-bit VXLAN network identifier, stable for the cluster (0 is reserved).
  return { cidr, vxlanId: 1 + (hash32("vxlan", clusterId) % 0xfffffe), vxlanPort: VXLAN_PORT };
}

/** The overlay address of the member of rank `rank`. */
export function memberAddress(cidr: string, rank: number): string {
  return `10.${secondByte(cidr)}.0.${rank + 2}`;
}

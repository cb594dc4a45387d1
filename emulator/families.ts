/**
 * The registry: every resource family of the emulator, once. The emulator makes the stores, the
 * API and control-plane routers, resets, saves, restores, sweeps and the control plane's state
 * from this list, in this order. A new family is a folder whose `index.ts` calls `defineFamily`
 * (family.ts), and one line here.
 *
 * Order matters where stores read each other: the catalog before the capacity it counts, both
 * before pods, which hold capacity as they are reset or restored; clusters after the pods their
 * members are (a fixture cluster is read off its member pods). Registries come after the
 * templates, pods and endpoints that may name them (their routes ask those stores who still does).
 * The service host (the listeners of running pods) reads no store as it is made or reset; it
 * comes after the pods whose ports it serves. Billing's meter comes before every family that
 * bills (pods, cluster members, serverless workers, volumes), which write their uses to it as
 * they are reset, restored and changed.
 */
import { accounts } from "./accounts";
import { billing } from "./billing";
import { catalog } from "./catalog";
import { clusters } from "./clusters";
import { control } from "./control";
import { hub } from "./hub";
import { pods } from "./pods";
import { capacity } from "./placement";
import { registries } from "./registries";
import { sandboxes } from "./sandboxes";
import { serverless } from "./serverless";
import { serviceHost } from "./services";
import { templates } from "./templates";
import { volumes } from "./volumes";

export const FAMILIES = [accounts, billing, catalog, capacity, templates, volumes, pods, clusters, serviceHost, sandboxes, serverless, registries, hub, control] as const;

type Registered = (typeof FAMILIES)[number];
type StoreOf<F extends Registered> = ReturnType<NonNullable<F["store"]>>;

/** Every family's store, under its family's name (`pods: Pods`); families without a store have none. */
export type Stores = { [F in Registered as [StoreOf<F>] extends [never] ? never : F["name"]]: StoreOf<F> };

type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/** The families' members of `GET /_emulator/state`, together. */
export type FamilyState = UnionToIntersection<ReturnType<NonNullable<Registered["state"]>>>;

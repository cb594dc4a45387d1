/**
 * The contract of the Compute Service v2 API in executable form: the wire schemas, every rule
 * and every constant that the SDK, the emulator, the provider and the CLI share. It depends on
 * nothing of the project (the SDK and the emulator depend on it, never the reverse). Request
 * schemas carry the contract's 422 rules; `*Violations` functions its 400 rules.
 */
export * from "./common";
export * from "./issues";
// The tolerant-reading helpers stay internal; only the shape of what a list sets aside is public.
export type { SetAside, TolerantList } from "./reading";
export * from "./command";
export * from "./cuda";
export * from "./pods";
export * from "./pod-rules";
export * from "./logs";
export * from "./sandboxes";
export * from "./catalog";
export * from "./templates";
export * from "./hub";
export * from "./serverless";
export * from "./volumes";
export * from "./registries";
export * from "./clusters";
export * from "./billing";
export * from "./readiness";
export * from "./lifetime";

/** Requests and expanded requests larger than this are refused with 413 (POST /v2/pods). */
export const MAX_BODY_BYTES = 102400;

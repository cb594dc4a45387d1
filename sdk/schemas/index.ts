/**
 * The wire schemas of the Compute Service v2 API: the only code the emulator shares with the
 * SDK. Request schemas carry the contract's 422 rules; `*Violations` functions its 400 rules.
 */
export * from "./common";
export * from "./issues";
// The tolerant-reading helpers stay internal; only the shape of what a list sets aside is public.
export type { SetAside, TolerantList } from "./reading";
export * from "./command";
export * from "./pods";
export * from "./pod-rules";
export * from "./sandboxes";
export * from "./catalog";
export * from "./hub";
export * from "./serverless";
export * from "./volumes";

/** Requests and expanded requests larger than this are refused with 413 (POST /v2/pods). */
export const MAX_BODY_BYTES = 102400;

/** The typed SDK of the Compute Service REST API v2. */
export { ComputeClient } from "./client";
export { ENV, SETTING_NAMES, fromStackConfig, resolveSettings, type ClientOptions, type ConnectionSettings, type SettingName, type SettingProblem, type SettingsResolution, type SettingsSource } from "./config";
export { checkKey, type KeyCheck } from "./credentials";
export * from "./errors";
export type { LogStreamOptions } from "./logs";
export { byRank, joinMembers, type ClusterWithMembers } from "./resources/clusters";
export {
  createClusterWithPlacement,
  createPodWithPlacement,
  deriveCandidates,
  PlacementError,
  type CandidateRule,
  type PlacementAttempt,
  type PlacementCandidate,
  type PlacementResult,
  type Placer,
} from "./placement";
export { createClusterRequestViolations, createPodViolations, createSandboxRequestViolations, reservedEnvViolations, reservedLabelViolations } from "./validate";
export {
  POD_OWNER_ENV,
  SANDBOX_OWNER_LABEL,
  SSH_KEY_OWNER_PREFIX,
  compactMark,
  isFirstGeneration,
  keyWithMark,
  keyWithoutMark,
  markOfKey,
  nameWithMark,
  splitMarkedName,
  nextGeneration,
  ownerMark,
  ownerOf,
  parseOwnerMark,
  withSpec,
  type ParsedOwnerMark,
} from "./ownership";
export { CLAIM_STALE_MS, describeOutcome, reap, reapOptionViolations, type ReapKind, type ReapOptions, type ReapOutcome, type ReapReport, type ReapTarget } from "./lifetimes";
export { placeWithPlan, planReadsCatalog, rankWithCatalog, stockOf, type CapacityPlan } from "./capacity";
export { HUB_SCALING, hubEndpointRequest, hubReleaseRequest, repoLabel, type HubDeployPlan } from "./hub-deploy";
export { fingerprintOf, parseKey, type RegisteredKey } from "./ssh-keys";
export type { WatcherOptions } from "./watch";
export { BillingQueryInput } from "./resources/billing";
export * from "../contract";

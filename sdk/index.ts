/** The typed SDK of the Compute Service REST API v2. */
export { ComputeClient } from "./client";
export { ENV, SETTING_NAMES, resolveSettings, type ClientOptions, type ConnectionSettings, type SettingName, type SettingProblem, type SettingsResolution, type SettingsSource } from "./config";
export * from "./errors";
export { streamLogs, isAfter, type LogStreamOptions } from "./logs";
export {
  createPodWithPlacement,
  deriveCandidates,
  rankCandidates,
  requestForCandidate,
  satisfiesCuda,
  describeCandidate,
  PlacementError,
  type CandidateRule,
  type PlacementAttempt,
  type PlacementCandidate,
  type PlacementResult,
} from "./placement";
export { RateLimiter, parseRateLimitHeaders, sharedRateLimiter, type WindowLimit } from "./rate-limit";
export { backoff, parseRetryAfter, retryDelay } from "./retry";
export { assertValid, createPodViolations, createSandboxRequestViolations, reservedEnvViolations, reservedLabelViolations, updatePodViolations } from "./validate";
export {
  POD_OWNER_ENV,
  SANDBOX_OWNER_LABEL,
  isFirstGeneration,
  nextGeneration,
  ownerMark,
  ownerOf,
  parseOwnerMark,
  sameOwner,
  withSpec,
  type OwnerIdentity,
  type ParsedOwnerMark,
} from "./ownership";
export { Watcher, type WatchSource, type WatcherOptions } from "./watch";
export * from "../contract";

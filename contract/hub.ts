/** Hub repositories (contract decisions: the REST backend of the CLI's `hub` commands). */
import { z } from "zod";
import { dateTime, stringMap } from "./common";

export const HUB_ORDER_BY = ["createdAt", "deploys", "releasedAt", "stars", "updatedAt", "views"] as const;
export const HubOrderBy = z.enum(HUB_ORDER_BY);
export const HubOrderDir = z.enum(["asc", "desc"]);
export const HubRepoType = z.enum(["POD", "SERVERLESS"]);
export type HubRepoType = z.infer<typeof HubRepoType>;

export const HubRelease = z.looseObject({
  id: z.string(),
  tag: z.string(),
  image: z.string(),
  config: z.looseObject({
    gpuIds: z.array(z.string()),
    gpuCount: z.int(),
    containerDiskInGb: z.int(),
    env: stringMap,
    allowedCudaVersions: z.array(z.string()),
  }),
});
export type HubRelease = z.infer<typeof HubRelease>;

export const HubRepo = z.looseObject({
  id: z.string(),
  owner: z.string(),
  name: z.string(),
  title: z.string(),
  description: z.string(),
  category: z.string(),
  type: HubRepoType,
  tags: z.array(z.string()),
  stars: z.int(),
  views: z.int(),
  deploys: z.int(),
  createdAt: dateTime,
  updatedAt: dateTime,
  releasedAt: dateTime.nullable(),
  release: HubRelease.nullable(),
});
export type HubRepo = z.infer<typeof HubRepo>;
export const ListHubReposResponse = z.looseObject({ repos: z.array(HubRepo) });

/** The largest `limit` of one page of GET /v2/hub/repos. */
export const MAX_HUB_LIST_LIMIT = 100;

/** Query of GET /v2/hub/repos, as the CLI and the emulator read it. */
export const HubListQuery = z.strictObject({
  query: z.string().optional(),
  category: z.string().optional(),
  owner: z.string().optional(),
  orderBy: HubOrderBy.optional(),
  orderDir: HubOrderDir.optional(),
  limit: z.coerce.number().pipe(z.int().min(1).max(MAX_HUB_LIST_LIMIT)).optional(),
  offset: z.coerce.number().pipe(z.int().min(0)).optional(),
});
export type HubListQuery = z.infer<typeof HubListQuery>;

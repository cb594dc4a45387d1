/**
 * `countryCodes` on the GPU catalog (reference OpenAPI, CountryCodesFilter): availability, the
 * dataCenters array and the list itself narrowed to data centers in those countries.
 */
import { GPU, useEmulator } from "./harness";

const h = useEmulator({ freezeClock: true });

const AVAILABILITY = "include=AVAILABILITY&product=POD";
const ids = (list: Array<{ id: string }>) => list.map((x) => x.id);

test("narrows availability and dataCenters to data centers in those countries (values OR-ed)", async () => {
  const everywhere = (await h.get(`/v2/catalog/gpus/${encodeURIComponent(GPU.rtx4090)}?${AVAILABILITY}`)).body;
  expect(ids(everywhere.dataCenters)).toEqual(expect.arrayContaining(["US-TX-3", "EU-RO-1"]));
  const romania = (await h.get(`/v2/catalog/gpus/${encodeURIComponent(GPU.rtx4090)}?${AVAILABILITY}&countryCodes=RO`)).body;
  expect(ids(romania.dataCenters)).toEqual(["EU-RO-1"]);
  const both = (await h.get(`/v2/catalog/gpus/${encodeURIComponent(GPU.rtx4090)}?${AVAILABILITY}&countryCodes=RO,US`)).body;
  expect(ids(both.dataCenters).sort()).toEqual(ids(everywhere.dataCenters).filter((id: string) => /^(US|EU-RO)-/.test(id)).sort());
});

test("the list keeps only GPU types with a data center in those countries", async () => {
  const all = (await h.get(`/v2/catalog/gpus?${AVAILABILITY}`)).body.gpus;
  const romania = (await h.get(`/v2/catalog/gpus?${AVAILABILITY}&countryCodes=RO`)).body.gpus;
  expect(romania.length).toBeGreaterThan(0);
  expect(romania.length).toBeLessThan(all.length);
  for (const gpu of romania) expect(ids(gpu.dataCenters ?? [])).toEqual(["EU-RO-1"]);
  expect(ids(romania)).not.toContain(GPU.l4); // offered in US-CA-2 only
  expect((await h.get(`/v2/catalog/gpus?${AVAILABILITY}&countryCodes=FR`)).body.gpus).toEqual([]);
});

test("a single GPU type with no data center there is still returned: availability NONE, no dataCenters", async () => {
  const response = await h.get(`/v2/catalog/gpus/${encodeURIComponent(GPU.l4)}?${AVAILABILITY}&countryCodes=FR,DE`);
  expect(response.status).toBe(200);
  expect(response.body).toMatchObject({ id: GPU.l4, availability: "NONE", cudaVersions: [] });
  expect(response.body).not.toHaveProperty("dataCenters");
});

test("400 without include=AVAILABILITY; 422 for a malformed code, listing each", async () => {
  const alone = await h.get("/v2/catalog/gpus?countryCodes=RO");
  expect(alone.status).toBe(400);
  expect(alone.body.detail).toMatch(/countryCodes/);
  const lower = await h.get(`/v2/catalog/gpus?${AVAILABILITY}&countryCodes=ro,USA,DE`);
  expect(lower.status).toBe(422);
  expect(lower.body.errors).toEqual([expect.stringContaining('"ro"'), expect.stringContaining('"USA"')]);
  expect((await h.get(`/v2/catalog/gpus/${encodeURIComponent(GPU.l4)}?${AVAILABILITY}&countryCodes=fr`)).status).toBe(422);
});

/** GET /v2/hub/repos (search, filters, ordering, paging) and single-repository reads. */
import { useEmulator } from "./harness";

const h = useEmulator();

interface Repo {
  id: string;
  owner: string;
  name: string;
  category: string;
  type: string;
  stars: number;
  createdAt: string;
  releasedAt: string | null;
  release: unknown;
}

const list = async (query = ""): Promise<Repo[]> => {
  const response = await h.get(`/v2/hub/repos${query}`);
  expect(response.status).toBe(200);
  return response.body.repos;
};

test("the fixture is a real-looking marketplace: 30+ repositories, varied, some unreleased", async () => {
  const all = await list("?limit=100");
  expect(all.length).toBeGreaterThanOrEqual(30);
  expect(new Set(all.map((r) => r.owner)).size).toBeGreaterThanOrEqual(10);
  expect(new Set(all.map((r) => r.category)).size).toBeGreaterThanOrEqual(6);
  expect(new Set(all.map((r) => r.type))).toEqual(new Set(["POD", "SERVERLESS"]));
  const unreleased = all.filter((r) => r.release === null);
  expect(unreleased.length).toBeGreaterThanOrEqual(3);
  expect(unreleased.every((r) => r.releasedAt === null)).toBe(true);
});

test("the default page is the top 10 by stars", async () => {
  const page = await list();
  expect(page).toHaveLength(10);
  const stars = page.map((r) => r.stars);
  expect(stars).toEqual([...stars].sort((a, b) => b - a));
  const all = await list("?limit=100");
  expect(page[0].stars).toBe(Math.max(...all.map((r) => r.stars)));
});

test("query searches names case-insensitively; category and owner filter exactly", async () => {
  const whisper = await list("?query=WHISPER");
  expect(whisper.map((r) => r.name).sort()).toEqual(["whisperx-diarize", "worker-faster_whisper"]);
  const audio = await list("?category=Audio&limit=100");
  expect(audio.length).toBeGreaterThan(2);
  expect(audio.every((r) => r.category === "Audio")).toBe(true);
  const owned = await list("?owner=runpod-workers&limit=100");
  expect(owned.map((r) => r.owner)).toEqual(Array(owned.length).fill("runpod-workers"));
  expect(await list("?query=whisper&owner=runpod-workers")).toHaveLength(1);
  expect(await list("?query=no-such-repo")).toEqual([]);
});

test("ordering by any field in either direction; releasedAt puts unreleased repositories last", async () => {
  const oldest = await list("?orderBy=createdAt&orderDir=asc&limit=100");
  const created = oldest.map((r) => Date.parse(r.createdAt));
  expect(created).toEqual([...created].sort((a, b) => a - b));
  for (const dir of ["asc", "desc"]) {
    const released = await list(`?orderBy=releasedAt&orderDir=${dir}&limit=100`);
    const firstNull = released.findIndex((r) => r.releasedAt === null);
    expect(firstNull).toBeGreaterThan(0);
    expect(released.slice(firstNull).every((r) => r.releasedAt === null)).toBe(true);
  }
  const leastStars = await list("?orderDir=asc&limit=3");
  expect(leastStars[0].stars).toBeLessThanOrEqual(leastStars[1].stars);
});

test("limit and offset page through a stable order", async () => {
  const whole = await list("?orderBy=views&limit=25");
  const pages = [...(await list("?orderBy=views&limit=10")), ...(await list("?orderBy=views&limit=10&offset=10")), ...(await list("?orderBy=views&limit=5&offset=20"))];
  expect(pages.map((r) => r.id)).toEqual(whole.map((r) => r.id));
  expect(await list("?offset=1000")).toEqual([]);
});

test("invalid parameters are 422, including type (filtered client-side by the CLI)", async () => {
  for (const query of ["?limit=0", "?limit=101", "?offset=-1", "?orderBy=name", "?orderDir=up", "?type=POD"]) {
    const response = await h.get(`/v2/hub/repos${query}`);
    expect(response.status).toBe(422);
    expect(response.body.errors).toHaveLength(1);
  }
});

test("a repository is read by id or by owner/name; unknown ones are 404", async () => {
  const [top] = await list("?limit=1");
  expect((await h.get(`/v2/hub/repos/${top.id}`)).body).toEqual(top);
  expect((await h.get(`/v2/hub/repos/${top.owner}/${top.name}`)).body).toEqual(top);
  expect((await h.get("/v2/hub/repos/hub_nothing")).status).toBe(404);
  expect((await h.get("/v2/hub/repos/nobody/nothing")).status).toBe(404);
});

/**
 * One started service (an emulator, a provider environment) shared by the tests of a file or a
 * describe block: started before the first test, closed after the last, and `beforeEachTest`
 * (a reset, usually) run before every test. Suites call it instead of writing the three hooks.
 */
export function useStarted<T extends { close(): Promise<unknown> }>(start: () => Promise<T>, beforeEachTest?: (started: T) => Promise<unknown>): T {
  // Filled in by beforeAll: read it inside tests and hooks, not at the top level of a file.
  const started = {} as T;
  beforeAll(async () => {
    Object.assign(started, await start());
  });
  afterAll(() => started.close());
  if (beforeEachTest) beforeEach(() => beforeEachTest(started));
  return started;
}

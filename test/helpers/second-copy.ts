/**
 * The SDK's error classes as a second copy of the package has them (a Pulumi program and the
 * dynamic provider may load two): a fresh module registry, so the classes are not this copy's.
 */
export function secondCopyOfSdkErrors(): typeof import("../../sdk/errors") {
  let other: typeof import("../../sdk/errors") | undefined;
  jest.isolateModules(() => {
    other = jest.requireActual("../../sdk/errors");
  });
  return other!;
}

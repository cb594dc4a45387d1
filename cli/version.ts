/** The package version, read at run time: the SDK's (both ship in the same package). */
export { packageVersion as cliVersion } from "../sdk/config";

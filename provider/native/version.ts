/** The plugin's version is the package's, as the SDK reads it (both ship in the same package). */
export { packageVersion } from "../../sdk/version";

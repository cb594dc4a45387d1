/** The NetworkVolume's inputs, listed once (see provider/resources/pod/inputs.ts). */
import type { InputList } from "../definition";

export const NETWORK_VOLUME_INPUTS = {
  name: { type: "string", onChange: "update", doc: "Volume name; default: the resource name plus a suffix. The service holds it followed by the owner mark (`<name>~<project>/<stack>~<tag>`)." },
  dataCenterId: { type: "string", required: true, onChange: "replace", doc: "Data center of the volume (catalog `dataCenters[].id`); pods mount it only there." },
  // Grows in place; a smaller size is a preview error (storage never shrinks).
  size: { type: "integer", required: true, onChange: "depends", doc: "Size in GB, 10–4096. Growing is an update in place; shrinking is refused at preview." },
  type: {
    type: "string",
    enum: ["STANDARD", "HIGH_PERFORMANCE"],
    onChange: "replace",
    doc: "Storage tier, one the data center offers (catalog `networkVolumeTypes`); default: the data center's first.",
  },
} as const satisfies InputList;

// A pod from a public template: image, command, ports, disk and env come from the template;
// what you set wins, and env is merged per key. No link to the template is kept.
import * as compute from "pulumi-compute";

const notebook = new compute.Pod("notebook", {
  templateId: "tpl_pytorch",
  gpu: { id: "NVIDIA GeForce RTX 4090" },
  env: { JUPYTER_THEME: "dark" }, // merged with the template's env
  startJupyter: true, // the service generates JUPYTER_PASSWORD: a secret output
});

export const image = notebook.imageApplied;
export const jupyterPassword = notebook.jupyterPassword;

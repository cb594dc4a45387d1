/**
 * Believable log text: what an image pull, a container start and the usual workloads print.
 * Every line is a pure function of (image, command, seed, line index, time), so a resumed
 * stream sees exactly the lines it missed.
 */
import { hash32 } from "../ids";

export interface ProcessOutput {
  /** What the process prints as it starts. */
  startup: string[];
  /** What it prints afterwards, one line per interval. */
  periodic(k: number, us: number, seed: number): string;
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

function stamp(us: number): { date: string; time: string; ms: string; d: Date } {
  const d = new Date(Math.floor(us / 1000));
  return {
    d,
    date: `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`,
    time: `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`,
    ms: pad(d.getUTCMilliseconds(), 3),
  };
}

const hex = (seed: number, length: number) => {
  let out = "";
  for (let i = 0; out.length < length; i++) out += hash32(seed, "hex", i).toString(16).padStart(8, "0");
  return out.slice(0, length);
};

export const containerId = (seed: number) => hex(seed, 12);

export function imagePullLines(image: string): string[] {
  const seed = hash32("image", image);
  const [repo, tag = "latest"] = splitImage(image);
  const layers = [0, 1, 2, 3].map((i) => hex(seed + i, 12));
  return [
    `Pulling image ${image}`,
    `${tag}: Pulling from ${repo}`,
    ...layers.map((l) => `${l}: Pulling fs layer`),
    ...layers.map((l, i) => `${l}: Download complete (${(((hash32(seed, i) % 2400) + 12) / 10).toFixed(1)} MB)`),
    ...layers.map((l) => `${l}: Pull complete`),
    `Digest: sha256:${hex(seed, 64)}`,
    `Status: Downloaded newer image for ${image}`,
  ];
}

function splitImage(image: string): [string, string] {
  const at = image.lastIndexOf(":");
  return at > image.lastIndexOf("/") ? [image.slice(0, at), image.slice(at + 1)] : [image, "latest"];
}

const pick = <T>(list: T[], n: number) => list[n % list.length];

function notebook(): ProcessOutput {
  return {
    startup: [
      "Starting SSH service...",
      " * Starting OpenBSD Secure Shell server sshd ...done.",
      "Starting Jupyter Lab...",
      "[I ServerApp] jupyter_lsp | extension was successfully loaded.",
      "[I ServerApp] Serving notebooks from local directory: /workspace",
      "[I ServerApp] Jupyter Server 2.14.2 is running at:",
      "[I ServerApp] http://127.0.0.1:8888/lab",
      "[I ServerApp] Use Control-C to stop this server and shut down all kernels (twice to skip confirmation).",
    ],
    periodic: (k, us, seed) => {
      const t = stamp(us);
      if (k % 17 === 5) return `[I ${t.date} ${t.time}.${t.ms} ServerApp] Saving file at /workspace/train.ipynb`;
      if (k % 29 === 11) return `[I ${t.date} ${t.time}.${t.ms} ServerApp] Kernel started: ${hex(seed + k, 8)}-${hex(seed, 4)}`;
      const step = (k + 1) * 10;
      const loss = 2.6 * Math.exp(-k / 400) + 0.35 + (hash32(seed, k) % 100) / 2000;
      const speed = 380 + (hash32(seed, "s", k) % 90);
      return `epoch ${1 + Math.floor(step / 2000)} | step ${step % 2000}/2000 | loss ${loss.toFixed(4)} | lr 2.0e-04 | ${speed}.${k % 10} samples/s`;
    },
  };
}

function llmServer(image: string): ProcessOutput {
  const engine = /ollama/.test(image) ? "ollama" : /tgi|text-generation/.test(image) ? "tgi" : "vllm";
  if (engine === "ollama") {
    return {
      startup: [
        "Couldn't find '/root/.ollama/id_ed25519'. Generating new private key.",
        'time=boot level=INFO source=routes.go:1259 msg="Listening on [::]:11434 (version 0.5.7)"',
        'time=boot level=INFO source=gpu.go:226 msg="looking for compatible GPUs"',
        'time=boot level=INFO source=types.go:131 msg="inference compute" library=cuda compute=8.9',
      ],
      periodic: (k, us, seed) => {
        const t = stamp(us);
        const ms = 80 + (hash32(seed, k) % 900);
        return `[GIN] ${t.date.replace(/-/g, "/")} - ${t.time} | 200 | ${(ms / 1000).toFixed(6)}s | 10.0.${seed % 200}.${2 + (k % 30)} | POST "/api/${k % 4 === 0 ? "chat" : "generate"}"`;
      },
    };
  }
  return {
    startup: [
      "INFO api_server.py:585] vLLM API server version 0.6.3",
      "INFO config.py:1021] Defaulting to use mp for distributed inference",
      "INFO model_runner.py:1060] Loading model weights took 14.9888 GB",
      "INFO gpu_executor.py:122] # GPU blocks: 27802, # CPU blocks: 2048",
      "INFO:     Started server process [1]",
      "INFO:     Waiting for application startup.",
      "INFO:     Application startup complete.",
      // No "Uvicorn running on …" here: the pod's http service prints it when it really
      // answers (pods/services.ts), and a log-matching readiness probe must not see it sooner.
    ],
    periodic: (k, _us, seed) => {
      if (k % 5 === 4) {
        const prompt = (hash32(seed, "p", k) % 4000) / 10;
        const gen = (hash32(seed, "g", k) % 9000) / 10;
        return `INFO metrics.py:351] Avg prompt throughput: ${prompt.toFixed(1)} tokens/s, Avg generation throughput: ${gen.toFixed(1)} tokens/s, Running: ${k % 7} reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: ${(k % 40) / 10 + 0.4}%, CPU KV cache usage: 0.0%.`;
      }
      return `INFO:     10.0.${seed % 200}.${2 + (k % 40)}:${40000 + (hash32(seed, k) % 20000)} - "POST /v1/chat/completions HTTP/1.1" 200 OK`;
    },
  };
}

function webServer(port: string): ProcessOutput {
  return {
    startup: [`Serving HTTP on 0.0.0.0 port ${port} (http://0.0.0.0:${port}/) ...`],
    periodic: (k, us, seed) => {
      const d = stamp(us).d;
      const month = d.toUTCString().split(" ")[2];
      const when = `${pad(d.getUTCDate())}/${month}/${d.getUTCFullYear()} ${stamp(us).time}`;
      const path = pick(["/health", "/", "/api/status", "/health", "/metrics", "/favicon.ico"], k + seed);
      const status = path === "/favicon.ico" ? 404 : 200;
      return `10.0.${seed % 200}.${2 + (k % 50)} - - [${when}] "GET ${path} HTTP/1.1" ${status} -`;
    },
  };
}

function comfy(): ProcessOutput {
  return {
    startup: [
      "Total VRAM 24217 MB, total RAM 64216 MB",
      "pytorch version: 2.5.1+cu124",
      "Set vram state to: NORMAL_VRAM",
      "Import times for custom nodes:",
      "   0.1 seconds: /workspace/ComfyUI/custom_nodes/ComfyUI-Manager",
      "Starting server",
      "To see the GUI go to: http://0.0.0.0:8188",
    ],
    periodic: (k, _us, seed) => {
      const phase = k % 6;
      if (phase === 0) return "got prompt";
      if (phase === 5) return `Prompt executed in ${(1.8 + (hash32(seed, k) % 120) / 100).toFixed(2)} seconds`;
      const done = phase * 5;
      return `${Math.round((done / 20) * 100)}%|${"█".repeat(phase * 2)}${" ".repeat(10 - phase * 2)}| ${done}/20 [00:0${phase}<00:0${5 - phase}, ${(8 + (hash32(seed, k) % 200) / 100).toFixed(2)}it/s]`;
    },
  };
}

function ray(): ProcessOutput {
  return {
    startup: [
      "Local node IP: 10.65.0.2",
      "--------------------",
      "Ray runtime started.",
      "--------------------",
      "To connect to this Ray cluster: ray.init()",
      "View the dashboard at http://0.0.0.0:8265",
    ],
    periodic: (k, _us, seed) => {
      if (k % 10 === 3) return `(autoscaler +${k}s) Resized to ${16 + (k % 3) * 8} CPUs, 4 GPUs.`;
      const loss = 1.9 * Math.exp(-k / 600) + 0.4 + (hash32(seed, k) % 50) / 1000;
      return `(RayTrainWorker pid=${2000 + (seed % 3000)}) step=${k * 4} train_loss=${loss.toFixed(4)} tokens_per_sec=${11000 + (hash32(seed, "t", k) % 3000)}`;
    },
  };
}

function generic(command: string[]): ProcessOutput {
  const what = command.join(" ") || "entrypoint";
  return {
    startup: [`[init] starting: ${what}`, "[init] environment ready"],
    periodic: (k, _us, seed) => {
      const jobs = k * 3 + (hash32(seed, k) % 3);
      return `[worker] heartbeat #${k + 1}: ${jobs} jobs done, queue depth ${hash32(seed, "q", k) % 12}, rss ${180 + (hash32(seed, "m", k) % 60)} MiB`;
    },
  };
}

/** The output profile of a container, guessed from its image and command like a person would. */
export function processOutput(image: string, command: string[]): ProcessOutput {
  const text = `${image} ${command.join(" ")}`.toLowerCase();
  if (/vllm|text-generation-inference|tgi|sglang|ollama/.test(text)) return llmServer(text);
  if (/comfy/.test(text)) return comfy();
  if (/\bray\b|ray-ml|rayproject/.test(text)) return ray();
  const server = /http\.server\s+(\d+)/.exec(text);
  if (server) return webServer(server[1]);
  if (/pytorch|jupyter|tensorflow|rocm|notebook|unsloth|axolotl/.test(text)) return notebook();
  if (/nginx|node|python|uvicorn|gunicorn/.test(text)) return webServer("8000");
  return generic(command);
}

/** The output profile as a line function: startup lines first, then the periodic ones. */
export function outputLine(profile: ProcessOutput, seed: number): (k: number, us: number) => string {
  return (k, us) => (k < profile.startup.length ? profile.startup[k] : profile.periodic(k - profile.startup.length, us, seed));
}

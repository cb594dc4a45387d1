/**
 * A progress line on stderr while a request is in flight, only when stderr is a terminal
 * (never in pipes, files or CI logs, so machine output and captured stderr stay clean).
 *
 * Hand-written rather than a package: the well-known spinners (`ora`, `nanospinner`,
 * `yocto-spinner`) are ESM-only in their maintained versions and this package is CommonJS;
 * what is needed here is twenty lines.
 */
const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
/** Quick answers should not flicker: the line appears only after this long. */
const SHOW_AFTER_MS = 150;

export interface Spinner {
  stop(): void;
}

export function startSpinner(text: string, stream: NodeJS.WriteStream = process.stderr): Spinner {
  if (!stream.isTTY) return { stop() {} };
  let frame = 0;
  let shown = false;
  const draw = () => {
    shown = true;
    stream.write(`\r${FRAMES[frame++ % FRAMES.length]} ${text}\x1b[K`);
  };
  let timer: NodeJS.Timeout | undefined = setTimeout(() => {
    draw();
    timer = setInterval(draw, 80);
    timer.unref();
  }, SHOW_AFTER_MS);
  timer.unref();
  return {
    stop() {
      if (timer) clearTimeout(timer); // clears an interval as well
      timer = undefined;
      if (shown) stream.write("\r\x1b[K");
      shown = false;
    },
  };
}

/** Runs `work` with a spinner labelled `text`. */
export async function withSpinner<T>(text: string, work: () => Promise<T>): Promise<T> {
  const spinner = startSpinner(text);
  try {
    return await work();
  } finally {
    spinner.stop();
  }
}

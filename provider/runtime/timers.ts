/** A timer's longest delay: Node's setTimeout limit (about 24.8 days); a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

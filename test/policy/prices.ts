/** The catalog prices the policy suites price stacks with: two GPU types, written out. */
import type { PriceList } from "../../contract/estimate";
import { GPU } from "../helpers/fixtures";

export const prices: PriceList = {
  gpuTypes: [
    { id: GPU.h100, price: { secure: 2.99, community: 2.69 }, maxCount: { secure: 8, community: 8 } },
    { id: GPU.a5000, price: { secure: 0.36, community: 0.16 }, maxCount: { secure: 8, community: 4 } },
  ],
};

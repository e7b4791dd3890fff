import { afterAll, beforeAll, describe } from "vitest";
import { type ContractStore, runIdMaker } from "./fixtures.ts";
import { forkContract } from "./forkContract.ts";
import { headContract } from "./headContract.ts";
import { logContract } from "./logContract.ts";
import { ownerContract } from "./ownerContract.ts";
import { pageContract } from "./pageContract.ts";

export type { ContractStore } from "./fixtures.ts";

/**
 * What every EventStore must do, whatever holds the events (SQLite, dynalite,
 * DynamoDB Local, a real table). `makeStore` is called once per suite; tests
 * use their own run ids, so the storage may hold other data.
 */
export function describeEventStoreContract(name: string, makeStore: () => Promise<ContractStore>): void {
  describe(`EventStore contract: ${name}`, () => {
    let current: ContractStore | undefined;
    const get = () => {
      if (!current) throw new Error("the store under test did not start");
      return current;
    };
    beforeAll(async () => {
      current = await makeStore();
    });
    afterAll(async () => {
      await current?.close();
    });
    const id = runIdMaker();
    logContract(get, id);
    pageContract(get, id);
    ownerContract(get, id);
    headContract(get, id);
    forkContract(get, id);
  });
}

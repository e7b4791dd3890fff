import { describe, expect, it } from "vitest";
import { daemonAddress, parseTraceHeader } from "../../../lib/runtime/aws/xray.ts";

describe("parseTraceHeader", () => {
  it.each([
    [
      "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1",
      { root: "1-5759e988-bd862e3fe1be46a994272793", parent: "53995c3f42cd8ad8", sampled: true, rest: "" },
    ],
    [
      "Root=1-a-b;Parent=p;Sampled=0;Lineage=a87bd80c:0",
      { root: "1-a-b", parent: "p", sampled: false, rest: ";Lineage=a87bd80c:0" },
    ],
    ["Parent=p; Root=1-a-b;Self=1-x", { root: "1-a-b", parent: "p", sampled: false, rest: ";Self=1-x" }],
    ["Root=1-a-b;Sampled=1", undefined],
    ["garbage", undefined],
    ["", undefined],
    [undefined, undefined],
  ])("%j", (header, expected) => {
    expect(parseTraceHeader(header)).toEqual(expected);
  });
});

describe("daemonAddress", () => {
  it.each([
    ["169.254.79.129:2000", { host: "169.254.79.129", port: 2000 }],
    ["tcp:127.0.0.1:2000 udp:127.0.0.2:2001", { host: "127.0.0.2", port: 2001 }],
    ["[::1]:2000", { host: "::1", port: 2000 }],
    ["localhost", undefined],
    ["host:99999", undefined],
    [":2000", undefined],
    [undefined, undefined],
  ])("%j", (value, expected) => {
    expect(daemonAddress(value)).toEqual(expected);
  });
});

/**
 * The first import of every entry point (`runlog`, `runlog/cdk`, `runlog/http`,
 * `runlog/testing`): on a Node.js older than runlog needs it stops the import with
 * one sentence, before any module an older Node could not run is evaluated. It
 * imports nothing else, so every Node can link it; the test under Node 20 keeps
 * the entry points' static graphs linkable there too.
 */
import { unsupportedNode } from "./core/nodeSupport.ts";

const problem = unsupportedNode(process.versions.node);
if (problem !== undefined) {
  const error = new Error(problem);
  error.name = "UnsupportedNodeError";
  // No frames: the sentence is the whole story, and Node prints the stack of an uncaught error.
  error.stack = `${error.name}: ${problem}`;
  throw error;
}

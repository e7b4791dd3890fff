// Your own CDK app: the Runlog construct in a stack of yours, serving the agents in src/agents.ts.
import { App, Duration, Stack } from "aws-cdk-lib";
import { Runlog } from "runlog/cdk";

const app = new App();
const stack = new Stack(app, "SupportDesk", { description: "The support desk's agents, on runlog" });
const runlog = new Runlog(stack, "Runlog", {
  agentsModule: "src/agents.ts",
  modelKeySecret: "support-desk/openai-api-key",
  retentionDays: 30,
  sweepEvery: Duration.minutes(10),
});
stack.exportValue(runlog.stateMachine.stateMachineArn, { name: "SupportDeskStateMachine" });

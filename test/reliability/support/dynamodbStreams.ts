/**
 * DynamoDB Streams over its JSON protocol (DynamoDB Local serves it on the table's endpoint; the
 * Streams SDK client is not a dependency): a table's stream read from the start, as the records
 * Lambda's event source mapping hands a function. DynamoDB Local checks no signature, so the
 * Authorization header only has to be well-formed.
 */
async function call<T>(endpoint: string, action: string, body: unknown): Promise<T> {
  const response = await fetch(endpoint, {
    method: "POST",
    headers: {
      "content-type": "application/x-amz-json-1.0",
      "x-amz-target": `DynamoDBStreams_20120810.${action}`,
      authorization:
        "AWS4-HMAC-SHA256 Credential=local/20200101/local/dynamodb/aws4_request, SignedHeaders=host, Signature=0",
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${action} answered ${response.status}: ${text}`);
  return JSON.parse(text) as T;
}

/** One stream record, in the shape a Lambda's DynamoDB event carries it. */
export interface StreamRecord {
  eventName: "INSERT" | "MODIFY" | "REMOVE";
  dynamodb: { Keys: { runId: { S: string }; seq: { N: string } }; SequenceNumber: string };
}

/** Every record of the table's stream so far, in the stream's order (shard by shard, each in order). */
export async function readStream(endpoint: string, streamArn: string): Promise<StreamRecord[]> {
  const { StreamDescription } = await call<{ StreamDescription: { Shards: { ShardId: string }[] } }>(
    endpoint,
    "DescribeStream",
    { StreamArn: streamArn },
  );
  const records: StreamRecord[] = [];
  for (const { ShardId } of StreamDescription.Shards) {
    let { ShardIterator: iterator } = await call<{ ShardIterator?: string }>(endpoint, "GetShardIterator", {
      StreamArn: streamArn,
      ShardId,
      ShardIteratorType: "TRIM_HORIZON",
    });
    while (iterator) {
      const page = await call<{ Records: StreamRecord[]; NextShardIterator?: string }>(
        endpoint,
        "GetRecords",
        {
          ShardIterator: iterator,
        },
      );
      records.push(...page.Records);
      // An open shard always has a next iterator: stop at its end (an empty page).
      iterator = page.Records.length === 0 ? undefined : page.NextShardIterator;
    }
  }
  return records;
}

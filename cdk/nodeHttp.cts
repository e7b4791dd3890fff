// node:http as Node's own module object, for the Lambda bundles to import in its place: see
// httpAlias in cdk/lambdaBundle.ts. CommonJS, so esbuild reads its exports when they are used.
export = process.getBuiltinModule("node:http");

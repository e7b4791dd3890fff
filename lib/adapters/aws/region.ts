import {
  loadConfig,
  NODE_REGION_CONFIG_FILE_OPTIONS,
  NODE_REGION_CONFIG_OPTIONS,
  REGION_ENV_NAME,
} from "@smithy/core/config";

/**
 * The region a client built without one gets: the SDK's own chain (`AWS_REGION`, the profile's
 * `region`, the instance's), except that an empty `AWS_REGION` counts as unset, as an empty value
 * does for every variable runlog reads (docs/reference/configuration.md). Left to the SDK, `""` is
 * taken as the region and every call fails `Region not accepted`, whatever the profile says.
 */
export function sdkRegion(): () => Promise<string> {
  return loadConfig(
    {
      ...NODE_REGION_CONFIG_OPTIONS,
      environmentVariableSelector: (env) => env[REGION_ENV_NAME] || undefined,
    },
    NODE_REGION_CONFIG_FILE_OPTIONS,
  );
}

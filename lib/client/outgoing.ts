/** AWS credentials as the SDK's providers give them. */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  /** When temporary credentials stop working; a provider is asked again before then. */
  expiration?: Date;
}

/** A request about to be sent, which an authenticator adds its headers to. */
export interface OutgoingRequest {
  method: string;
  url: URL;
  headers: Headers;
  body?: string;
}

/** Adds what proves the caller to a request (signed again on every attempt: a signature holds a time). */
export type Authenticate = (request: OutgoingRequest) => Promise<void>;

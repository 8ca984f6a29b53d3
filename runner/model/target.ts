/** Where requests go. Secrets live only in memory; every output passes through runner/redact.ts. */
export interface Target {
  name: string;
  management?: ManagementTarget;
  s3?: S3Target;
  /** The bindings probe (suites/s3/bindings-probe/): a worker that makes R2 binding calls for us. */
  bindings?: BindingsTarget;
  /** Optional capabilities the target offers: names of runner/model/features.ts. */
  features: string[];
  /** Whether the target is the embedded reference started by this run. */
  embedded?: boolean;
}

export interface ManagementTarget {
  /** {base_url}: the API lives under {baseUrl}/client/v4. */
  baseUrl: string;
  token?: string;
  legacy?: { email: string; key: string };
  accountId?: string;
  zoneId?: string;
  /** Ids of objects a live account cannot create freely (invite, certificatePack, ...). */
  ids: Record<string, string>;
}

export interface S3Target {
  endpoint: string;
  /** Public bucket base URL: {publicUrl}/{bucket}/{key}. */
  publicUrl?: string;
  region: string;
  addressing: 'path' | 'virtual';
  accessKeyId: string;
  secretAccessKey: string;
}

export interface BindingsTarget {
  /** The probe deployed with the r2_list_honor_include compatibility flag. */
  url: string;
  /** The probe deployed without it, for the checks that the flag is what changes list(). */
  legacyUrl?: string;
  /** Sent as x-edgecheck-probe-secret; the probe refuses requests without it. */
  secret: string;
  /** The bucket the probe is bound to, when it is also reachable through the target's S3 endpoint. */
  bucket?: string;
}

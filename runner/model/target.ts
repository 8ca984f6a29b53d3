/** Where requests go. Secrets live only in memory; every output passes through runner/redact.ts. */
export interface Target {
  name: string;
  management?: ManagementTarget;
  s3?: S3Target;
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

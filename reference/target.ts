/**
 * The target description the reference hands to whoever runs against it. It is declared here,
 * not imported from the engine, because the reference meets the engine only over HTTP; by
 * structural typing it is accepted wherever the engine's Target is (the CLI's wiring checks that).
 */
export interface ReferenceTarget {
  name: string;
  embedded: boolean;
  features: string[];
  management: {
    baseUrl: string;
    token: string;
    legacy: { email: string; key: string };
    accountId: string;
    zoneId: string;
    ids: Record<string, string>;
  };
  s3: {
    endpoint: string;
    publicUrl: string;
    region: string;
    addressing: 'path' | 'virtual';
    accessKeyId: string;
    secretAccessKey: string;
  };
  bindings: { url: string; legacyUrl: string; secret: string; bucket: string };
}

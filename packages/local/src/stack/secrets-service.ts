import { type AwsJsonService, isNamedServiceError } from '../api/aws-json-protocol';
import { SECRETS_MANAGER_REFERENCE_PREFIX, type LocalSecrets } from './local-secrets';

class ParameterNotFound extends Error {
  override readonly name = 'ParameterNotFound';
}
class ResourceNotFoundException extends Error {
  override readonly name = 'ResourceNotFoundException';
}

const describeError = (err: unknown) =>
  isNamedServiceError(err) ? { type: err.name, message: err.message } : undefined;

/**
 * `AmazonSSM.GetParameter` for Parameter Store's Secrets Manager references
 * (`/aws/reference/secretsmanager/<secret>`), the one way the runtime reads its signing key: the functions'
 * own code and environment run unchanged, only the endpoint is local.
 */
export function parameterStoreService(secrets: LocalSecrets): AwsJsonService {
  return {
    targetPrefix: 'AmazonSSM',
    async handle(operation, input) {
      if (operation !== 'GetParameter')
        throw Object.assign(new Error(`The local Parameter Store serves only GetParameter, not ${operation}`), {
          name: 'UnsupportedOperation',
        });
      const name = String(input.Name ?? '');
      const value = name.startsWith(SECRETS_MANAGER_REFERENCE_PREFIX)
        ? secrets.get(name.slice(SECRETS_MANAGER_REFERENCE_PREFIX.length))
        : undefined;
      if (value === undefined) throw new ParameterNotFound(`Parameter ${name} not found.`);
      return {
        Parameter: {
          Name: name,
          Type: 'SecureString',
          Value: value,
          Version: 1,
          ARN: `arn:aws:ssm:::parameter${name}`,
        },
      };
    },
    describeError,
    serializationError: (message) => ({ type: 'SerializationException', message }),
  };
}

/** `secretsmanager.GetSecretValue` for the stack's secrets (by name or ARN). */
export function secretsManagerService(secrets: LocalSecrets): AwsJsonService {
  return {
    targetPrefix: 'secretsmanager',
    async handle(operation, input) {
      if (operation !== 'GetSecretValue')
        throw Object.assign(new Error(`The local Secrets Manager serves only GetSecretValue, not ${operation}`), {
          name: 'UnsupportedOperation',
        });
      const id = String(input.SecretId ?? '');
      // An ARN ends in `secret:<name>-<6 random characters>`.
      const name = id.startsWith('arn:') ? (id.split(':secret:')[1]?.replace(/-[A-Za-z0-9]{6}$/, '') ?? id) : id;
      const value = secrets.get(name);
      if (value === undefined) throw new ResourceNotFoundException("Secrets Manager can't find the specified secret.");
      return { Name: name, SecretString: value, VersionId: 'local', VersionStages: ['AWSCURRENT'] };
    },
    describeError,
    serializationError: (message) => ({ type: 'SerializationException', message }),
  };
}

/**
 * Cloud assemblies (`cdk.out`) as a CloudFormation consumer reads them: the manifest, the templates and
 * their assets; intrinsic functions resolved through a pluggable context (AWS's values by default);
 * the state machines, roles and service calls of a resolved template; and IAM evaluation of those calls
 * with the (AGPL, devDependency, loaded on demand) policy simulator.
 */
export * from './template';
export * from './assembly';
export * from './intrinsics';
export * from './arns';
export * from './aws-context';
export * from './state-machines';
export * from './iam-policies';
export * from './task-requests';
export * from './iam-simulation';
export * from './alarm-topics';
export * from './deploy-impact';

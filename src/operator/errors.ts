import { ApiError, invalidValue, notFound } from '../platform/errors.ts';

/** The refusals of named operators: the operator API answers them as envelopes, the console as pages. */
export const operatorErrors = {
  alreadyBootstrapped: () =>
    new ApiError(
      'ValidationException',
      'operator.alreadyBootstrapped',
      'An operator exists already: the operator token creates only the first admin. Sign in to the console and create operators there.',
      { status: 409 },
    ),
  emailTaken: () =>
    new ApiError(
      'ValidationException',
      'operator.emailTaken',
      'An operator with this e-mail exists already.',
      {
        status: 409,
        problematicField: 'email',
      },
    ),
  invalidEmail: () =>
    invalidValue('email', 'Enter an e-mail address such as ada@example.com.', 'operator.invalidEmail'),
  invalidName: () => invalidValue('name', 'Enter a name of 1 to 100 characters.', 'operator.invalidName'),
  invalidRole: () => invalidValue('role', 'Choose support, reviewer or admin.', 'operator.invalidRole'),
  weakPassword: (problem: string) => invalidValue('password', problem, 'operator.weakPassword'),
  wrongPassword: () =>
    invalidValue('currentPassword', 'The current password is not right.', 'operator.wrongPassword'),
  unknownOperator: () => notFound('Operator'),
  lastAdmin: () =>
    new ApiError(
      'ValidationException',
      'operator.lastAdmin',
      'This would leave no enabled admin: make another operator admin first.',
      { status: 409 },
    ),
  notYourself: () =>
    new ApiError(
      'ValidationException',
      'operator.notYourself',
      'Ask another admin to do this to your own operator.',
      {
        status: 409,
      },
    ),
  invalidTokenLabel: () =>
    invalidValue('label', 'Name the token in 1 to 80 characters.', 'operator.invalidTokenLabel'),
  unknownToken: () => notFound('Token'),
};

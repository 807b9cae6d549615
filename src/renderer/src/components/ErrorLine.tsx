/** A failure in words, announced as it appears (role alert); nothing when there is none. */
export function ErrorLine({ message }: { message: string | null | undefined }) {
  if (!message) return null;
  return (
    <p className="error" role="alert">
      {message}
    </p>
  );
}

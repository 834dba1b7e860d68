// Placeholder: implemented by the issue-5 work in progress.

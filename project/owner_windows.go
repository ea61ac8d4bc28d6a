//go:build windows

package project

import (
	"io/fs"

	"golang.org/x/sys/windows"
)

// systemOwner is what Windows says of the file at path for Find's
// ownership rule (trust), as git for Windows reads it
// (is_path_owned_by_current_sid): the owner's SID, the SID of the user the
// process runs as (its token's), and, when the owner is the Administrators
// group, whether the process is a member of it (CheckTokenMembership with
// no token: the thread's or the process's, where the group counts only
// when elevated). Untested: there is no Windows machine in the project's
// CI; trust, the decision, is tested on every system.
func systemOwner(path string, _ fs.FileInfo) ownerFacts {
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.OWNER_SECURITY_INFORMATION)
	if err != nil {
		return ownerFacts{fail: err.Error()}
	}
	owner, _, err := sd.Owner()
	if err != nil || owner == nil || !owner.IsValid() {
		return ownerFacts{fail: "no valid owner"}
	}
	tu, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return ownerFacts{fail: "the current user: " + err.Error()}
	}
	f := ownerFacts{sid: owner.String(), user: tu.User.Sid.String()}
	if owner.IsWellKnown(windows.WinBuiltinAdministratorsSid) {
		member, err := windows.Token(0).IsMember(owner)
		f.adminMember = err == nil && member
	}
	return f
}

<#-- license-maven-plugin add-third-party template (tools/licences/check.py): one dependency a line,
     groupId TAB artifactId TAB version TAB licence names joined with | -->
<#list dependencyMap as e>
<#assign project = e.getKey()/>
<#assign licenses = e.getValue()/>
${project.groupId}	${project.artifactId}	${project.version}	<#list licenses as l>${l}<#if l_has_next>|</#if></#list>
</#list>
